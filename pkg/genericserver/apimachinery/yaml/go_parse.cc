#include "pkg/genericserver/apimachinery/yaml/go_parse.h"

#include <charconv>
#include <limits>
#include <string>
#include <system_error>

namespace apimachinery::yaml::internal {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

int DigitValue(char c) {
  if (IsDigit(c)) return c - '0';
  const char l = Lower(c);
  if (l >= 'a' && l <= 'z') return l - 'a' + 10;
  return 99;
}

// Reads up to two digits as Go's time getnum(s, false) does.
std::optional<int> TwoDigits(std::string_view& s) {
  if (s.empty() || !IsDigit(s[0])) return std::nullopt;
  if (s.size() < 2 || !IsDigit(s[1])) {
    const int v = s[0] - '0';
    s.remove_prefix(1);
    return v;
  }
  const int v = (s[0] - '0') * 10 + (s[1] - '0');
  s.remove_prefix(2);
  return v;
}

bool IsLeapYear(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysIn(int month, int year) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

// "15:4:5.999999999": hour, minute, second and an optional fraction.
bool ParseClock(std::string_view& s) {
  const auto hour = TwoDigits(s);
  if (!hour || *hour >= 24 || s.empty() || s[0] != ':') return false;
  s.remove_prefix(1);
  const auto minute = TwoDigits(s);
  if (!minute || *minute >= 60 || s.empty() || s[0] != ':') return false;
  s.remove_prefix(1);
  const auto second = TwoDigits(s);
  if (!second || *second >= 60) return false;
  if (s.size() >= 2 && (s[0] == '.' || s[0] == ',') && IsDigit(s[1])) {
    std::size_t n = 1;
    while (n < s.size() && IsDigit(s[n])) ++n;
    s.remove_prefix(n);
  }
  return true;
}

// "Z07:00": Z or a +hh:mm / -hh:mm offset.
bool ParseZone(std::string_view& s) {
  if (!s.empty() && s[0] == 'Z') {
    s.remove_prefix(1);
    return true;
  }
  if (s.size() < 6 || s[3] != ':' || (s[0] != '+' && s[0] != '-')) return false;
  if (!IsDigit(s[1]) || !IsDigit(s[2]) || !IsDigit(s[4]) || !IsDigit(s[5])) return false;
  const int hh = (s[1] - '0') * 10 + (s[2] - '0');
  const int mm = (s[4] - '0') * 10 + (s[5] - '0');
  if (hh > 24 || mm > 60) return false;
  s.remove_prefix(6);
  return true;
}

}  // namespace

std::optional<std::uint64_t> GoParseUint(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int base = 10;
  if (s[0] == '0') {
    if (s.size() >= 3 && Lower(s[1]) == 'b') {
      base = 2;
      s.remove_prefix(2);
    } else if (s.size() >= 3 && Lower(s[1]) == 'o') {
      base = 8;
      s.remove_prefix(2);
    } else if (s.size() >= 3 && Lower(s[1]) == 'x') {
      base = 16;
      s.remove_prefix(2);
    } else {
      base = 8;
      s.remove_prefix(1);
    }
  }
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t n = 0;
  for (const char c : s) {
    const int d = DigitValue(c);
    if (d >= base) return std::nullopt;
    if (n > (kMax - static_cast<std::uint64_t>(d)) / static_cast<std::uint64_t>(base)) {
      return std::nullopt;
    }
    n = n * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
  }
  return n;
}

std::optional<std::int64_t> GoParseInt(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool negative = false;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  const auto u = GoParseUint(s);
  if (!u) return std::nullopt;
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 63;
  if (!negative) {
    if (*u >= kLimit) return std::nullopt;
    return static_cast<std::int64_t>(*u);
  }
  if (*u > kLimit) return std::nullopt;
  if (*u == kLimit) return std::numeric_limits<std::int64_t>::min();
  return -static_cast<std::int64_t>(*u);
}

std::optional<double> GoParseDecimalFloat(std::string_view s) {
  std::size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  const std::size_t mantissa_start = i;
  std::string digits;
  int int_digits = -1;
  for (; i < s.size() && (IsDigit(s[i]) || s[i] == '.'); ++i) {
    if (s[i] == '.') {
      if (int_digits >= 0) return std::nullopt;
      int_digits = static_cast<int>(digits.size());
    } else {
      digits.push_back(s[i]);
    }
  }
  if (digits.empty()) return std::nullopt;
  if (int_digits < 0) int_digits = static_cast<int>(digits.size());
  long long exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) exp_negative = s[i++] == '-';
    if (i >= s.size() || !IsDigit(s[i])) return std::nullopt;
    for (; i < s.size() && IsDigit(s[i]); ++i) {
      if (exponent < 1000000) exponent = exponent * 10 + (s[i] - '0');
    }
    if (exp_negative) exponent = -exponent;
  }
  if (i != s.size()) return std::nullopt;
  double value = 0;
  const char* first = s.data() + mantissa_start;
  const auto r = std::from_chars(first, s.data() + s.size(), value);
  if (r.ec == std::errc::result_out_of_range) {
    // Go fails on overflow only; an underflow reads as zero.
    const auto nonzero = digits.find_first_not_of('0');
    if (nonzero == std::string::npos) return negative ? -0.0 : 0.0;
    const long long magnitude = int_digits - static_cast<long long>(nonzero) + exponent;
    if (magnitude > 0) return std::nullopt;
    return negative ? -0.0 : 0.0;
  }
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return negative ? -value : value;
}

bool IsYAMLStyleFloat(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    const std::size_t start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i == start) return false;
  } else {
    const std::size_t start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i == start) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && IsDigit(s[i])) ++i;
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const std::size_t start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i == start) return false;
  }
  return i == s.size();
}

bool IsBase60Float(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i >= s.size() || !IsDigit(s[i])) return false;
  ++i;
  while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) ++i;
  int groups = 0;
  while (i < s.size() && s[i] == ':') {
    ++i;
    const std::size_t start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    const std::size_t n = i - start;
    if (n == 0 || n > 2 || (n == 2 && s[start] > '5')) return false;
    ++groups;
  }
  if (groups == 0) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && (IsDigit(s[i]) || s[i] == '_')) ++i;
  }
  return i == s.size();
}

bool IsTimestamp(std::string_view s) {
  // Quick check as go-yaml: four digits and a dash.
  if (s.size() < 5 || s[4] != '-') return false;
  int year = 0;
  for (int i = 0; i < 4; ++i) {
    if (!IsDigit(s[i])) return false;
    year = year * 10 + (s[i] - '0');
  }
  s.remove_prefix(5);
  const auto month = TwoDigits(s);
  if (!month || *month < 1 || *month > 12 || s.empty() || s[0] != '-') return false;
  s.remove_prefix(1);
  const auto day = TwoDigits(s);
  if (!day || *day < 1 || *day > DaysIn(*month, year)) return false;
  if (s.empty()) return true;  // "2006-1-2"
  const char separator = s[0];
  if (separator == ' ') {
    // A layout space matches any run of spaces in time.Parse.
    while (!s.empty() && s[0] == ' ') s.remove_prefix(1);
    return ParseClock(s) && s.empty();
  }
  if (separator != 'T' && separator != 't') return false;
  s.remove_prefix(1);
  return ParseClock(s) && ParseZone(s) && s.empty();
}

}  // namespace apimachinery::yaml::internal
