#pragma once
// The range arithmetic of cel-go's static cost estimation (checker.CostEstimate and
// checker.SizeEstimate, which behave alike): a [min, max] of uint64 that saturates at 2^64-1
// instead of wrapping. Upstream's estimates are API: the same inputs must give the same
// numbers, so every operation follows cel-go's definition, rounding included.

#include <cmath>
#include <cstdint>
#include <limits>

namespace apiextensions::cel {

inline constexpr uint64_t kMaxUint64 = std::numeric_limits<uint64_t>::max();

struct Estimate {
  uint64_t min = 0;
  uint64_t max = 0;
  bool operator==(const Estimate&) const = default;
};

// A size nothing is known of.
inline constexpr Estimate kUnknownSize{0, kMaxUint64};

inline uint64_t SaturatingAdd(uint64_t x, uint64_t y) {
  return y > 0 && x > kMaxUint64 - y ? kMaxUint64 : x + y;
}

inline uint64_t SaturatingMul(uint64_t x, uint64_t y) {
  return y != 0 && x > kMaxUint64 / y ? kMaxUint64 : x * y;
}

// x * factor rounded up, saturating; computed in double precision as Go's float64.
inline uint64_t MulFactor(uint64_t x, double factor) {
  const double xf = static_cast<double>(x);
  if (xf > 0 && factor > 0 && xf > static_cast<double>(kMaxUint64) / factor) return kMaxUint64;
  const double c = std::ceil(xf * factor);
  if (c >= std::ldexp(1.0, 64)) return kMaxUint64;
  return static_cast<uint64_t>(c);
}

inline Estimate Add(Estimate a, Estimate b) {
  return {SaturatingAdd(a.min, b.min), SaturatingAdd(a.max, b.max)};
}

inline Estimate Multiply(Estimate a, Estimate b) {
  return {SaturatingMul(a.min, b.min), SaturatingMul(a.max, b.max)};
}

inline Estimate MultiplyByFactor(Estimate a, double factor) {
  return {MulFactor(a.min, factor), MulFactor(a.max, factor)};
}

// The range covering both.
inline Estimate Union(Estimate a, Estimate b) {
  return {a.min < b.min ? a.min : b.min, a.max > b.max ? a.max : b.max};
}

inline Estimate Fixed(uint64_t v) { return {v, v}; }

}  // namespace apiextensions::cel
