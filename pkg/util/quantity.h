#pragma once
// resource.Quantity (k8s.io/apimachinery/pkg/api/resource) as a value: parsed from its
// text ("500m", "1.5Gi", "2e3"), added, subtracted, compared, and printed in upstream's
// canonical form (Quantity.String()):
//  - the format comes from the suffix: binary SI ("Ki".."Ei"), decimal SI ("n".."E" and
//    none), or a decimal exponent ("e3", "E-2");
//  - values finer than the nano are rounded up (away from zero) when parsed; binary values
//    between 0 and 1 become decimal SI, and binary values are capped at 2^63-1;
//  - decimal forms print the smallest whole mantissa with an exponent that is a multiple
//    of three ("1500m", "1k", "12e6"), decimal SI ending at E (upstream drops the suffix
//    from 10^21 up; here "1000E" keeps it); binary forms print the largest power of 1024
//    that keeps the mantissa whole ("1536Mi"), or decimal SI below 1024 or when not whole;
//  - zero prints "0"; an addition to a zero takes the other operand's format.
// The value is held exactly in nano units (a 128-bit integer), which covers magnitudes up
// to about 10^29; larger texts do not parse, and sums saturate there (upstream's Quantity
// has arbitrary precision). Pure; no dependency beyond the standard library.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace util {

class Quantity {
 public:
  enum class Format { kDecimalExponent, kBinarySI, kDecimalSI };

  // Zero, decimal SI.
  Quantity() = default;
  // A whole number in `format` (resource.NewQuantity).
  explicit Quantity(int64_t value, Format format = Format::kDecimalSI);

  // resource.ParseQuantity (surrounding ASCII white space ignored); std::nullopt when the
  // text is not a quantity or beyond the range held.
  static std::optional<Quantity> Parse(std::string_view text);

  // What a suffix means: a power of 10 or 2 and the format it gives ("Ki": 2^10, binary SI;
  // "m": 10^-3, decimal SI; "e3", "E-2": a decimal exponent, read as strconv.ParseInt reads
  // an int64 and then truncated to 32 bits, as upstream does); std::nullopt for any other.
  struct Suffix {
    int base = 10;
    int32_t exponent = 0;
    Format format = Format::kDecimalSI;
  };
  static std::optional<Suffix> ParseSuffix(std::string_view suffix);

  void Add(const Quantity& y);
  void Sub(const Quantity& y);
  // -1, 0 or 1 as this is less than, equal to or greater than y.
  int Cmp(const Quantity& y) const;
  bool IsZero() const { return nano_ == 0; }
  // Rounds to a whole number away from zero (RoundUp(0)); false when that changed it.
  bool RoundUpToInteger();

  std::string String() const;
  Format format() const { return format_; }
  // The value in nano units.
  __int128 nano() const { return nano_; }

 private:
  __int128 nano_ = 0;
  Format format_ = Format::kDecimalSI;
};

}  // namespace util
