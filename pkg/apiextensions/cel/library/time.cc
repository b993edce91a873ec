// Timestamps and durations: parsing and formatting (shared with the interpreter) and the
// accessors getFullYear(), getHours(), ...

#include <cctype>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/apiextensions/cel/library/internal.h"
#include "pkg/genericserver/apimachinery/schema/go_values.h"

namespace apiextensions::cel {

namespace {

// Timestamps are limited to years 0001..9999 as in CEL.
constexpr int64_t kMinTimestampSeconds = -62135596800;
constexpr int64_t kMaxTimestampSeconds = 253402300799;

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

struct Civil {
  int64_t year;
  unsigned month;  // 1..12
  unsigned day;    // 1..31
};

Civil CivilFromDays(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {y + (m <= 2), m, d};
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::string Pad(int64_t v, int width) {
  std::string s = std::to_string(v);
  if (static_cast<int>(s.size()) < width)
    s = std::string(static_cast<size_t>(width) - s.size(), '0') + s;
  return s;
}

// Parses a time zone argument: "UTC", "Z", or a fixed offset "+05:30" / "-07:00".
std::optional<int64_t> TzOffsetSeconds(std::string_view tz) {
  if (tz.empty() || tz == "UTC" || tz == "Z" || tz == "GMT" || tz == "Etc/UTC") return 0;
  std::string_view t = tz;
  int sign = 1;
  if (t[0] == '+' || t[0] == '-') {
    sign = t[0] == '-' ? -1 : 1;
    t.remove_prefix(1);
  }
  if (t.size() == 5 && t[2] == ':' && std::isdigit(static_cast<unsigned char>(t[0])) &&
      std::isdigit(static_cast<unsigned char>(t[1])) &&
      std::isdigit(static_cast<unsigned char>(t[3])) &&
      std::isdigit(static_cast<unsigned char>(t[4]))) {
    int64_t h = (t[0] - '0') * 10 + (t[1] - '0');
    int64_t m = (t[3] - '0') * 10 + (t[4] - '0');
    return sign * (h * 3600 + m * 60);
  }
  return std::nullopt;
}

// The fields of a timestamp in a zone.
struct Broken {
  Civil civil;
  int64_t days;  // since the epoch
  int64_t secs_of_day;
};

Broken Break(const Value& ts, int64_t offset) {
  int64_t s = ts.i + offset;
  int64_t days = FloorDiv(s, 86400);
  return {CivilFromDays(days), days, s - days * 86400};
}

}  // namespace

namespace internal {

Value MakeTimestamp(int64_t seconds, int64_t nanos) {
  seconds += nanos / kNanosPerSecond;
  nanos %= kNanosPerSecond;
  if (nanos < 0) {
    nanos += kNanosPerSecond;
    --seconds;
  }
  if (seconds < kMinTimestampSeconds || seconds > kMaxTimestampSeconds) {
    return Value::Error("timestamp out of range");
  }
  return Value::Timestamp(seconds, static_cast<int32_t>(nanos));
}

}  // namespace internal

using internal::kNanosPerSecond;
using internal::MakeTimestamp;

// --- Exposed helpers ------------------------------------------------------------------------

Value ParseDuration(std::string_view text) {
  std::string_view s = text;
  auto invalid = [&]() {
    return Value::Error("time: invalid duration \"" + std::string(text) + "\"");
  };
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return Value::Duration(0);
  if (s.empty()) return invalid();
  unsigned __int128 total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || std::isdigit(static_cast<unsigned char>(s[0])))) return invalid();
    uint64_t v = 0;
    size_t k = 0;
    bool pre = false;
    while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) {
      if (v > (std::numeric_limits<uint64_t>::max() - 9) / 10) return invalid();
      v = v * 10 + static_cast<uint64_t>(s[k] - '0');
      ++k;
      pre = true;
    }
    uint64_t frac = 0;
    double scale = 1;
    bool post = false;
    if (k < s.size() && s[k] == '.') {
      ++k;
      while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) {
        if (frac < (1ULL << 60)) {
          frac = frac * 10 + static_cast<uint64_t>(s[k] - '0');
          scale *= 10;
        }
        ++k;
        post = true;
      }
    }
    if (!pre && !post) return invalid();
    size_t u = k;
    while (u < s.size() && s[u] != '.' && !std::isdigit(static_cast<unsigned char>(s[u]))) ++u;
    std::string_view unit = s.substr(k, u - k);
    if (unit.empty())
      return Value::Error("time: missing unit in duration \"" + std::string(text) + "\"");
    uint64_t mult;
    if (unit == "ns") {
      mult = 1;
    } else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") {
      mult = 1000;
    } else if (unit == "ms") {
      mult = 1000000;
    } else if (unit == "s") {
      mult = 1000000000;
    } else if (unit == "m") {
      mult = 60ULL * 1000000000;
    } else if (unit == "h") {
      mult = 3600ULL * 1000000000;
    } else {
      return Value::Error("time: unknown unit \"" + std::string(unit) + "\" in duration \"" +
                          std::string(text) + "\"");
    }
    unsigned __int128 part = static_cast<unsigned __int128>(v) * mult;
    if (post)
      part += static_cast<unsigned __int128>(static_cast<double>(frac) *
                                             (static_cast<double>(mult) / scale));
    total += part;
    if (total > static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max()) + (neg ? 1 : 0))
      return invalid();
    s = s.substr(u);
  }
  auto t = static_cast<int64_t>(neg ? -static_cast<__int128>(total) : static_cast<__int128>(total));
  return Value::Duration(t);
}

Value ParseTimestamp(std::string_view text) {
  if (auto err = apimachinery::schema::GoTimeParseError(apimachinery::schema::kRFC3339, text)) {
    return Value::Error(*err);
  }
  // Accepted by Go's parser: YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)
  auto num = [&](size_t pos, size_t len) {
    int64_t v = 0;
    for (size_t k = 0; k < len; ++k) v = v * 10 + (text[pos + k] - '0');
    return v;
  };
  int64_t year = num(0, 4);
  auto month = static_cast<unsigned>(num(5, 2));
  auto day = static_cast<unsigned>(num(8, 2));
  int64_t hh = num(11, 2), mm = num(14, 2), ss = num(17, 2);
  size_t p = 19;
  int64_t nanos = 0;
  if (p < text.size() && (text[p] == '.' || text[p] == ',')) {
    ++p;
    int digits = 0;
    while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p]))) {
      if (digits < 9) {
        nanos = nanos * 10 + (text[p] - '0');
        ++digits;
      }
      ++p;
    }
    while (digits < 9) {
      nanos *= 10;
      ++digits;
    }
  }
  int64_t offset = 0;
  if (p < text.size() && text[p] != 'Z') {
    int sign = text[p] == '-' ? -1 : 1;
    offset = sign * (num(p + 1, 2) * 3600 + num(p + 4, 2) * 60);
  }
  int64_t secs = DaysFromCivil(year, month, day) * 86400 + hh * 3600 + mm * 60 + ss - offset;
  return MakeTimestamp(secs, nanos);
}

std::string FormatTimestamp(const Value& ts) {
  int64_t days = FloorDiv(ts.i, 86400);
  int64_t sod = ts.i - days * 86400;
  Civil c = CivilFromDays(days);
  std::string out = Pad(c.year, 4) + "-" + Pad(c.month, 2) + "-" + Pad(c.day, 2) + "T" +
                    Pad(sod / 3600, 2) + ":" + Pad((sod / 60) % 60, 2) + ":" + Pad(sod % 60, 2);
  if (ts.nanos != 0) {
    std::string frac = Pad(ts.nanos, 9);
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    out += "." + frac;
  }
  return out + "Z";
}

std::string FormatDuration(int64_t nanos) {
  bool neg = nanos < 0;
  unsigned __int128 m = neg ? static_cast<unsigned __int128>(-static_cast<__int128>(nanos)) : nanos;
  auto secs = static_cast<uint64_t>(m / kNanosPerSecond);
  auto frac = static_cast<uint64_t>(m % kNanosPerSecond);
  std::string out = (neg ? "-" : "") + std::to_string(secs);
  if (frac != 0) {
    std::string f = Pad(static_cast<int64_t>(frac), 9);
    while (!f.empty() && f.back() == '0') f.pop_back();
    out += "." + f;
  }
  return out + "s";
}

namespace internal {

void RegisterTime(Builder& b) {
  auto I = IntType(), S = StringType();
  auto Dur = DurationType(), Ts = TimestampType();
  struct Accessor {
    const char* name;
    int64_t (*get)(const Broken&);
  };
  static const Accessor kTs[] = {
      {"getFullYear", [](const Broken& t) { return t.civil.year; }},
      {"getMonth", [](const Broken& t) { return static_cast<int64_t>(t.civil.month) - 1; }},
      {"getDate", [](const Broken& t) { return static_cast<int64_t>(t.civil.day); }},
      {"getDayOfMonth", [](const Broken& t) { return static_cast<int64_t>(t.civil.day) - 1; }},
      {"getDayOfWeek", [](const Broken& t) { return ((t.days % 7) + 11) % 7; }},
      {"getDayOfYear", [](const Broken& t) { return t.days - DaysFromCivil(t.civil.year, 1, 1); }},
      {"getHours", [](const Broken& t) { return t.secs_of_day / 3600; }},
      {"getMinutes", [](const Broken& t) { return (t.secs_of_day / 60) % 60; }},
      {"getSeconds", [](const Broken& t) { return t.secs_of_day % 60; }},
  };
  for (const auto& acc : kTs) {
    auto get = acc.get;
    b.Member(acc.name, {Ts}, I,
             [get](EvalContext&, const Args& a) { return Value::Int(get(Break(a[0], 0))); });
    b.Member(acc.name, {Ts, S}, I, [get](EvalContext&, const Args& a) {
      auto off = TzOffsetSeconds(a[1].str());
      if (!off) return Value::Error("unsupported time zone: " + a[1].str());
      return Value::Int(get(Break(a[0], *off)));
    });
  }
  b.Member("getMilliseconds", {Ts}, I,
           [](EvalContext&, const Args& a) { return Value::Int(a[0].nanos / 1000000); });
  b.Member("getMilliseconds", {Ts, S}, I,
           [](EvalContext&, const Args& a) { return Value::Int(a[0].nanos / 1000000); });
  b.Member("getHours", {Dur}, I, [](EvalContext&, const Args& a) {
    return Value::Int(a[0].i / (3600 * kNanosPerSecond));
  });
  b.Member("getMinutes", {Dur}, I,
           [](EvalContext&, const Args& a) { return Value::Int(a[0].i / (60 * kNanosPerSecond)); });
  b.Member("getSeconds", {Dur}, I,
           [](EvalContext&, const Args& a) { return Value::Int(a[0].i / kNanosPerSecond); });
  b.Member("getMilliseconds", {Dur}, I,
           [](EvalContext&, const Args& a) { return Value::Int(a[0].i / 1000000); });
}

}  // namespace internal

}  // namespace apiextensions::cel
