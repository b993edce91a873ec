#include "pkg/genericserver/apimachinery/protobuf/go_json.h"

#include <cstdio>
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

}  // namespace

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
