#include "pkg/util/timestamp.h"

#include <cstdio>
#include <ctime>

namespace util {

std::string FormatTime(std::chrono::system_clock::time_point t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string FormatMicroTime(std::chrono::system_clock::time_point t) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(micros / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[48];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%06lldZ", static_cast<long long>(micros % 1000000));
  return buf;
}

std::optional<std::chrono::system_clock::time_point> ParseTime(std::string_view s) {
  std::tm tm{};
  std::string text(s);
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!end) return std::nullopt;
  auto t = std::chrono::system_clock::from_time_t(timegm(&tm));
  if (*end == '.') {
    long long fraction = 0;
    int digits = 0;
    for (++end; *end >= '0' && *end <= '9'; ++end) {
      if (digits < 6) {
        fraction = fraction * 10 + (*end - '0');
        ++digits;
      }
    }
    for (; digits < 6; ++digits) fraction *= 10;
    t += std::chrono::microseconds(fraction);
  }
  return t;
}

}  // namespace util
