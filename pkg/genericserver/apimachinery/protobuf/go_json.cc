#include "pkg/genericserver/apimachinery/protobuf/go_json.h"

#include <cstdio>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace apimachinery::protobuf::gojson {
namespace {

constexpr std::int64_t kNanosPerSecond = 1'000'000'000;
// Go's zero time.Time (January 1, year 1, 00:00:00 UTC) in Unix seconds.
constexpr std::int64_t kZeroTimeUnix = -62'135'596'800;

// The length of the valid UTF-8 sequence at s[i], or 0 when none starts there (overlong forms,
// surrogates and code points past U+10FFFF included), as Go's utf8.DecodeRuneInString decides.
std::size_t ValidRuneLength(std::string_view s, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char b0 = at(0);
  if (b0 < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (s.size() - i < n) return 0;
  if (at(1) < lo || at(1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (at(k) < 0x80 || at(k) > 0xBF) return 0;
  }
  return n;
}

// The proleptic Gregorian date of a day counted from 1970-01-01 (H. Hinnant's algorithm).
void CivilFromDays(std::int64_t z, std::int64_t& year, int& month, int& day) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  year = yoe + era * 400 + (month <= 2 ? 1 : 0);
}

// Days since 1970-01-01 of a proleptic Gregorian date (the inverse of CivilFromDays).
std::int64_t DaysFromCivil(std::int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const std::int64_t yoe = year - era * 400;
  const std::int64_t doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// The digits of text[pos, pos + n) as a number, or -1.
int Digits(std::string_view text, std::size_t pos, std::size_t n) {
  if (pos + n > text.size()) return -1;
  int v = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

}  // namespace

std::optional<Timestamp> ParseTime(std::string_view text) {
  // 2006-01-02T15:04:05[.fraction](Z|+07:00)
  const int year = Digits(text, 0, 4), month = Digits(text, 5, 2), day = Digits(text, 8, 2);
  const int hour = Digits(text, 11, 2), minute = Digits(text, 14, 2), second = Digits(text, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 ||
      minute < 0 || minute > 59 || second < 0 || second > 60 || text[4] != '-' || text[7] != '-' ||
      (text[10] != 'T' && text[10] != 't') || text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  std::size_t pos = 19;
  std::int64_t nanos = 0;
  if (pos < text.size() && text[pos] == '.') {
    std::int64_t scale = kNanosPerSecond;
    ++pos;
    const std::size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (scale > 1) {
        scale /= 10;
        nanos += (text[pos] - '0') * scale;
      }
      ++pos;
    }
    if (pos == start) return std::nullopt;
  }
  std::int64_t offset = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const int oh = Digits(text, pos + 1, 2), om = Digits(text, pos + 4, 2);
    if (oh < 0 || om < 0 || pos + 3 >= text.size() || text[pos + 3] != ':') return std::nullopt;
    offset = (text[pos] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != text.size()) return std::nullopt;
  const std::int64_t seconds =
      DaysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset;
  return Timestamp{seconds, static_cast<std::int32_t>(nanos)};
}

std::string SanitizeUTF8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = ValidRuneLength(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

nlohmann::json Time(std::int64_t seconds, std::int64_t nanos, bool micro) {
  // time.Unix normalizes nanoseconds outside [0, 1e9) into the seconds (wrapping as Go does).
  if (nanos < 0 || nanos >= kNanosPerSecond) {
    std::int64_t carry = nanos / kNanosPerSecond;
    nanos -= carry * kNanosPerSecond;
    if (nanos < 0) {
      nanos += kNanosPerSecond;
      --carry;
    }
    seconds = static_cast<std::int64_t>(static_cast<std::uint64_t>(seconds) +
                                        static_cast<std::uint64_t>(carry));
  }
  if (seconds == kZeroTimeUnix && nanos == 0) return nullptr;

  std::int64_t days = seconds / 86400;
  std::int64_t rem = seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  std::int64_t year = 0;
  int month = 0;
  int day = 0;
  CivilFromDays(days, year, month, day);

  // Go writes the year with at least four digits, a minus sign before negative ones.
  char buf[96];
  const unsigned long long abs_year = year < 0 ? 0ULL - static_cast<unsigned long long>(year)
                                               : static_cast<unsigned long long>(year);
  int n = std::snprintf(buf, sizeof buf, "%s%04llu-%02d-%02dT%02d:%02d:%02d", year < 0 ? "-" : "",
                        abs_year, month, day, static_cast<int>(rem / 3600),
                        static_cast<int>(rem / 60 % 60), static_cast<int>(rem % 60));
  std::string text(buf, static_cast<std::size_t>(n));
  if (micro) {
    n = std::snprintf(buf, sizeof buf, ".%06d", static_cast<int>(nanos / 1000));
    text.append(buf, static_cast<std::size_t>(n));
  }
  text += 'Z';
  return text;
}

}  // namespace apimachinery::protobuf::gojson
