#pragma once
// The checks that upstream's custom JSON decoders of a few apimachinery types make, with
// their error messages: metav1.Time and metav1.MicroTime (Go's time.Parse) and
// resource.Quantity (resource.ParseQuantity). Used by CheckTypes (typecheck.h).

#include <optional>
#include <string>
#include <string_view>

namespace apimachinery::schema {

// The layouts metav1.Time and metav1.MicroTime parse with.
inline constexpr std::string_view kRFC3339 = "2006-01-02T15:04:05Z07:00";
inline constexpr std::string_view kRFC3339Micro = "2006-01-02T15:04:05.000000Z07:00";

// std::nullopt when Go's time.Parse(layout, value) accepts value; else its error message,
// e.g. `parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"`.
// layout is kRFC3339 or kRFC3339Micro.
std::optional<std::string> GoTimeParseError(std::string_view layout, std::string_view value);

// A value GoTimeParseError accepts, as metav1.Time (kRFC3339) or metav1.MicroTime
// (kRFC3339Micro) marshal it after decoding: converted to UTC ("Z"), the fraction dropped
// (Time) or cut to six digits (MicroTime). std::nullopt when the UTC year leaves 0-9999, where
// the Go marshalling fails.
std::optional<std::string> GoTimeCanonical(std::string_view layout, std::string_view value);

// std::nullopt when resource.ParseQuantity accepts the text (after trimming white space, as
// Quantity.UnmarshalJSON does); else its error message, e.g. "quantities must match the
// regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'".
std::optional<std::string> QuantityParseError(std::string_view text);

// The canonical form upstream stores a valid quantity in (Quantity.String() after
// decoding, as util::Quantity prints it): "1000m" -> "1", "0.5" -> "500m", "1.5Gi" ->
// "1536Mi", "1000000" -> "1M", values rounded up to the nano, binary values capped at
// 2^63-1. std::nullopt when the text is not a quantity or is beyond the exact range of
// util::Quantity (about 10^29), in which case it is kept as given.
std::optional<std::string> QuantityCanonical(std::string_view text);

// The value of a valid quantity ("500m" -> 0.5, "1Gi" -> 1073741824), for comparing
// quantities; std::nullopt as for QuantityCanonical.
std::optional<long double> QuantityAmount(std::string_view text);

}  // namespace apimachinery::schema
