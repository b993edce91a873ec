#include "pkg/util/timestamp.h"

#include <cstdint>
#include <cstdio>
#include <ctime>

namespace util {

namespace {

// The `n` digits at `pos` as a number; -1 when any is not a digit or the text is short.
int Digits(std::string_view s, size_t pos, size_t n) {
  if (pos + n > s.size()) return -1;
  int value = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    value = value * 10 + (s[i] - '0');
  }
  return value;
}

}  // namespace

std::string FormatTime(std::chrono::system_clock::time_point t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string FormatMicroTime(MicroTime t) {
  using namespace std::chrono;
  const sys_days day = floor<days>(t);
  const year_month_day date{day};
  const hh_mm_ss<microseconds> time{t - day};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02lld:%02lld:%02lld.%06lldZ",
                static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                static_cast<unsigned>(date.day()), static_cast<long long>(time.hours().count()),
                static_cast<long long>(time.minutes().count()),
                static_cast<long long>(time.seconds().count()),
                static_cast<long long>(time.subseconds().count()));
  return buf;
}

std::string FormatMicroTime(std::chrono::system_clock::time_point t) {
  return FormatMicroTime(std::chrono::floor<std::chrono::microseconds>(t));
}

std::optional<MicroTime> ParseRFC3339(std::string_view s) {
  using namespace std::chrono;
  // "YYYY-MM-DDTHH:MM:SS" is 19 characters; the zone at least one more.
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':') {
    return std::nullopt;
  }
  const int y = Digits(s, 0, 4), mo = Digits(s, 5, 2), d = Digits(s, 8, 2);
  const int h = Digits(s, 11, 2), mi = Digits(s, 14, 2), sec = Digits(s, 17, 2);
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 ||
      sec > 59) {
    return std::nullopt;
  }
  const year_month_day date{year(y), month(static_cast<unsigned>(mo)),
                            day(static_cast<unsigned>(d))};
  if (!date.ok()) return std::nullopt;  // 2026-02-30

  size_t pos = 19;
  int64_t fraction_us = 0;
  if (s[pos] == '.' || s[pos] == ',') {
    ++pos;
    int digits = 0;
    for (; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos, ++digits) {
      if (digits < 6) fraction_us = fraction_us * 10 + (s[pos] - '0');
    }
    if (digits == 0) return std::nullopt;
    for (; digits < 6; ++digits) fraction_us *= 10;
  }

  minutes offset{0};
  if (pos < s.size() && s[pos] == 'Z') {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    const int oh = Digits(s, pos + 1, 2), om = Digits(s, pos + 4, 2);
    if (oh < 0 || om < 0 || pos + 3 >= s.size() || s[pos + 3] != ':' || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset = hours(oh) + minutes(om);
    if (s[pos] == '-') offset = -offset;
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;

  const MicroTime local = time_point_cast<microseconds>(sys_days(date)) + hours(h) + minutes(mi) +
                          seconds(sec) + microseconds(fraction_us);
  return local - offset;
}

std::optional<std::chrono::system_clock::time_point> ParseTime(std::string_view s) {
  using namespace std::chrono;
  std::optional<MicroTime> t = ParseRFC3339(s);
  if (!t) return std::nullopt;
  // What system_clock holds, in microseconds (rounded inwards).
  constexpr auto kMin = ceil<microseconds>(system_clock::time_point::min().time_since_epoch());
  constexpr auto kMax = floor<microseconds>(system_clock::time_point::max().time_since_epoch());
  if (t->time_since_epoch() < kMin || t->time_since_epoch() > kMax) return std::nullopt;
  return time_point_cast<system_clock::duration>(*t);
}

MicroTime MicroNow() {
  return std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
}

}  // namespace util
