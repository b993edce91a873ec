#pragma once
// How Go's encoding/json and the apimachinery marshalers write a few values, so that a decoded
// protobuf field reads exactly as the same object sent as JSON (internal to
// apimachinery/protobuf).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace apimachinery::protobuf::gojson {

// The string as encoding/json writes it: every byte that does not start a valid UTF-8
// sequence becomes U+FFFD. Valid input comes back unchanged.
std::string SanitizeUTF8(std::string_view s);

// metav1.Time / metav1.MicroTime from a protobuf Timestamp (seconds, nanos) as time.Unix would
// build it: null for Go's zero time, else "2006-01-02T15:04:05Z" (Time) or
// "2006-01-02T15:04:05.000000Z" (MicroTime) in UTC, fractions truncated.
nlohmann::json Time(std::int64_t seconds, std::int64_t nanos, bool micro);

struct Timestamp {
  std::int64_t seconds = 0;
  std::int32_t nanos = 0;
};
// An RFC 3339 time ("2006-01-02T15:04:05Z", with a fraction or an offset) as Unix seconds
// and nanoseconds; std::nullopt when the text is not one.
std::optional<Timestamp> ParseTime(std::string_view text);

}  // namespace apimachinery::protobuf::gojson
