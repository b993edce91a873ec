#include "pkg/util/duration.h"

#include <cstdint>
#include <limits>

#include "pkg/util/strings.h"

namespace util {
namespace {

struct Unit {
  std::string_view name;
  int64_t nanos;
};
constexpr Unit kUnits[] = {
    {"ns", 1},       {"us", 1000},      {"\xC2\xB5s", 1000}, {"\xCE\xBCs", 1000},
    {"ms", 1000000}, {"s", 1000000000}, {"m", 60000000000},  {"h", 3600000000000},
};

std::string Invalid(std::string_view s) { return "time: invalid duration " + Quote(s); }

}  // namespace

std::expected<Duration, std::string> ParseDuration(std::string_view orig) {
  std::string_view s = orig;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return Duration(0);
  if (s.empty()) return std::unexpected(Invalid(orig));
  long double total = 0;
  while (!s.empty()) {
    size_t i = 0;
    long double value = 0;
    bool digits = false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      value = value * 10 + (s[i] - '0');
      ++i;
      digits = true;
    }
    if (i < s.size() && s[i] == '.') {
      ++i;
      long double scale = 0.1L;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        value += (s[i] - '0') * scale;
        scale /= 10;
        ++i;
        digits = true;
      }
    }
    if (!digits) return std::unexpected(Invalid(orig));
    size_t u = i;
    while (u < s.size() && s[u] != '.' && (s[u] < '0' || s[u] > '9')) ++u;
    std::string_view unit = s.substr(i, u - i);
    if (unit.empty()) return std::unexpected("time: missing unit in duration " + Quote(orig));
    const Unit* found = nullptr;
    for (const Unit& candidate : kUnits) {
      if (candidate.name == unit) found = &candidate;
    }
    if (!found) {
      return std::unexpected("time: unknown unit " + Quote(unit) + " in duration " + Quote(orig));
    }
    total += value * found->nanos;
    if (total > static_cast<long double>(std::numeric_limits<int64_t>::max())) {
      return std::unexpected(Invalid(orig));
    }
    s.remove_prefix(u);
  }
  auto nanos = static_cast<int64_t>(total + 0.5L);
  return Duration(neg ? -nanos : nanos);
}

namespace {
// Appends whole.frac with trailing zeros of frac removed; frac has `digits` digits.
void AppendFraction(std::string& out, uint64_t whole, uint64_t frac, int digits) {
  out += std::to_string(whole);
  if (frac == 0) return;
  std::string f = std::to_string(frac);
  f.insert(0, static_cast<size_t>(digits) - f.size(), '0');
  while (!f.empty() && f.back() == '0') f.pop_back();
  out += '.';
  out += f;
}
}  // namespace

std::string FormatDuration(Duration d) {
  int64_t n = d.count();
  if (n == 0) return "0s";
  std::string out;
  uint64_t u = n < 0 ? static_cast<uint64_t>(-(n + 1)) + 1 : static_cast<uint64_t>(n);
  if (n < 0) out += '-';
  if (u < 1000) return out + std::to_string(u) + "ns";
  if (u < 1000000) {
    AppendFraction(out, u / 1000, u % 1000, 3);
    return out + "\xC2\xB5s";
  }
  if (u < 1000000000) {
    AppendFraction(out, u / 1000000, u % 1000000, 6);
    return out + "ms";
  }
  uint64_t secs = u / 1000000000, frac = u % 1000000000;
  uint64_t hours = secs / 3600, minutes = (secs / 60) % 60;
  if (hours) out += std::to_string(hours) + "h";
  if (hours || minutes) out += std::to_string(minutes) + "m";
  AppendFraction(out, secs % 60, frac, 9);
  return out + "s";
}

}  // namespace util
