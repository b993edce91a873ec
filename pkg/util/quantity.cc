#include "pkg/util/quantity.h"

#include <string>

namespace util {

namespace {

using Int = __int128;

constexpr Int kNano = 1000000000;
// The largest magnitude held, in nano units: 10^38 (about 10^29 units).
constexpr Int Pow10(int n) {
  Int v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}
constexpr Int kMax = Pow10(38);
// Binary quantities are capped at the largest int64, as upstream's parser caps them.
constexpr Int kMaxBinary = static_cast<Int>(INT64_MAX) * kNano;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// a * b, or std::nullopt beyond kMax (both non-negative).
std::optional<Int> Mul(Int a, Int b) {
  if (a == 0 || b == 0) return Int{0};
  if (a > kMax / b) return std::nullopt;
  return a * b;
}

Int Saturate(Int v) {
  if (v > kMax) return kMax;
  if (v < -kMax) return -kMax;
  return v;
}

std::string Digits(Int v) {
  if (v == 0) return "0";
  std::string out;
  while (v > 0) {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return out;
}

// ceil(numerator / denominator) for non-negative operands.
Int DivUp(Int numerator, Int denominator) {
  return numerator / denominator + (numerator % denominator != 0 ? 1 : 0);
}

}  // namespace

std::optional<Quantity::Suffix> Quantity::ParseSuffix(std::string_view s) {
  using F = Format;
  struct Known {
    std::string_view text;
    Suffix suffix;
  };
  static constexpr Known kKnown[] = {
      {"", {10, 0, F::kDecimalSI}},   {"n", {10, -9, F::kDecimalSI}},
      {"u", {10, -6, F::kDecimalSI}}, {"m", {10, -3, F::kDecimalSI}},
      {"k", {10, 3, F::kDecimalSI}},  {"M", {10, 6, F::kDecimalSI}},
      {"G", {10, 9, F::kDecimalSI}},  {"T", {10, 12, F::kDecimalSI}},
      {"P", {10, 15, F::kDecimalSI}}, {"E", {10, 18, F::kDecimalSI}},
      {"Ki", {2, 10, F::kBinarySI}},  {"Mi", {2, 20, F::kBinarySI}},
      {"Gi", {2, 30, F::kBinarySI}},  {"Ti", {2, 40, F::kBinarySI}},
      {"Pi", {2, 50, F::kBinarySI}},  {"Ei", {2, 60, F::kBinarySI}},
  };
  for (const Known& k : kKnown) {
    if (k.text == s) return k.suffix;
  }
  if (s.size() < 2 || (s[0] != 'e' && s[0] != 'E')) return std::nullopt;
  // strconv.ParseInt(s[1:], 10, 64): an optional sign, at least one digit, in range.
  std::string_view digits = s.substr(1);
  bool negative = false;
  if (digits[0] == '+' || digits[0] == '-') {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) return std::nullopt;
  constexpr uint64_t kLimit = uint64_t{1} << 63;  // |INT64_MIN|
  uint64_t x = 0;
  for (char c : digits) {
    if (!IsDigit(c) || x > kLimit / 10) return std::nullopt;
    x = x * 10 + static_cast<uint64_t>(c - '0');
    if (x > kLimit) return std::nullopt;
  }
  if (!negative && x == kLimit) return std::nullopt;
  const uint64_t bits = negative ? 0 - x : x;
  return Suffix{10, static_cast<int32_t>(static_cast<uint32_t>(bits)), F::kDecimalExponent};
}

Quantity::Quantity(int64_t value, Format format)
    : nano_(static_cast<Int>(value) * kNano), format_(format) {}

std::optional<Quantity> Quantity::Parse(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || (text.front() >= '\t' && text.front() <= '\r'))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || (text.back() >= '\t' && text.back() <= '\r'))) {
    text.remove_suffix(1);
  }
  if (text.empty()) return std::nullopt;
  size_t pos = 0;
  bool negative = false;
  if (text[0] == '+' || text[0] == '-') {
    negative = text[0] == '-';
    ++pos;
  }
  const size_t int_start = pos;
  while (pos < text.size() && IsDigit(text[pos])) ++pos;
  std::string_view whole = text.substr(int_start, pos - int_start);
  std::string_view fraction;
  if (pos < text.size() && text[pos] == '.') {
    const size_t frac_start = ++pos;
    while (pos < text.size() && IsDigit(text[pos])) ++pos;
    fraction = text.substr(frac_start, pos - frac_start);
  }
  // The suffix: SI letters, then an optional sign and digits, to the end.
  const size_t suffix_start = pos;
  while (pos < text.size() &&
         std::string_view("eEinumkKMGTP").find(text[pos]) != std::string_view::npos) {
    ++pos;
  }
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
  while (pos < text.size() && IsDigit(text[pos])) ++pos;
  if (pos != text.size()) return std::nullopt;
  auto suffix = ParseSuffix(text.substr(suffix_start));
  if (!suffix) return std::nullopt;

  // Trailing zeros of the fraction change nothing.
  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  Int mantissa = 0;
  for (std::string_view part : {whole, fraction}) {
    for (char c : part) {
      auto shifted = Mul(mantissa, 10);
      if (!shifted) return std::nullopt;
      mantissa = *shifted + (c - '0');
    }
  }
  const int fraction_digits = static_cast<int>(fraction.size());

  // nano = ceil(mantissa * base^exponent * 10^(9 - fraction_digits)).
  Int numerator = mantissa;
  Int denominator = 1;
  int64_t tens = 9 - fraction_digits;
  int64_t twos = 0;
  if (suffix->base == 10) {
    tens += suffix->exponent;
  } else {
    twos = suffix->exponent;
  }
  for (int64_t i = 0; i < twos && numerator != 0; ++i) {
    auto v = Mul(numerator, 2);
    if (!v) return std::nullopt;
    numerator = *v;
  }
  for (int64_t i = 0; i < tens && numerator != 0; ++i) {
    auto v = Mul(numerator, 10);
    if (!v) return std::nullopt;
    numerator = *v;
  }
  bool tiny = false;  // the divisor exceeds what is held: any non-zero value is 1n
  for (int64_t i = 0; i < -tens; ++i) {
    if (denominator > kMax / 10) {
      tiny = true;
      break;
    }
    denominator *= 10;
  }
  Quantity q;
  q.format_ = suffix->format;
  if (tiny) {
    q.nano_ = numerator != 0 ? 1 : 0;
  } else {
    q.nano_ = DivUp(numerator, denominator);
  }
  if (q.format_ == Format::kBinarySI) {
    if (q.nano_ > 0 && q.nano_ < kNano) q.format_ = Format::kDecimalSI;
    if (q.nano_ > kMaxBinary) q.nano_ = kMaxBinary;
  }
  if (negative) q.nano_ = -q.nano_;
  return q;
}

void Quantity::Add(const Quantity& y) {
  if (nano_ == 0) format_ = y.format_;
  nano_ = Saturate(nano_ + y.nano_);
}

void Quantity::Sub(const Quantity& y) {
  if (nano_ == 0) format_ = y.format_;
  nano_ = Saturate(nano_ - y.nano_);
}

int Quantity::Cmp(const Quantity& y) const {
  if (nano_ < y.nano_) return -1;
  if (nano_ > y.nano_) return 1;
  return 0;
}

bool Quantity::RoundUpToInteger() {
  if (nano_ % kNano == 0) return true;
  const Int whole = nano_ / kNano;  // toward zero
  nano_ = (nano_ > 0 ? whole + 1 : whole - 1) * kNano;
  return false;
}

std::string Quantity::String() const {
  if (nano_ == 0) return "0";
  const std::string sign = nano_ < 0 ? "-" : "";
  const Int magnitude = nano_ < 0 ? -nano_ : nano_;
  Format format = format_;
  if (format == Format::kBinarySI && (magnitude < 1024 * kNano || magnitude % kNano != 0)) {
    format = Format::kDecimalSI;
  }
  if (format == Format::kBinarySI) {
    static constexpr const char* kBinary[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    Int value = magnitude / kNano;
    int step = 0;
    while (step < 6 && value % 1024 == 0) {
      value /= 1024;
      ++step;
    }
    return sign + Digits(value) + kBinary[step];
  }
  // The smallest whole mantissa, then the exponent down to a multiple of three.
  Int mantissa = magnitude;
  int exponent = -9;
  while (mantissa % 10 == 0) {
    mantissa /= 10;
    ++exponent;
  }
  while (exponent % 3 != 0) {
    mantissa *= 10;
    --exponent;
  }
  if (format == Format::kDecimalExponent) {
    return sign + Digits(mantissa) + (exponent == 0 ? "" : "e" + std::to_string(exponent));
  }
  // Decimal SI ends at E (10^18): larger values keep a larger mantissa.
  while (exponent > 18) {
    mantissa *= 10;
    --exponent;
  }
  static constexpr const char* kDecimal[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
  return sign + Digits(mantissa) + kDecimal[(exponent + 9) / 3];
}

}  // namespace util
