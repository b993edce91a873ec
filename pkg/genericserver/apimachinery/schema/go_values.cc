#include "pkg/genericserver/apimachinery/schema/go_values.h"

#include <chrono>
#include <cstdio>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "pkg/util/quantity.h"

namespace apimachinery::schema {

namespace {

// ---- time.Parse -------------------------------------------------------------------------
//
// Go walks the layout element by element: the literal text before an element must match
// exactly, then the element consumes what it can. The first element that fails names itself
// and the text it was given ("cannot parse REST as ELEMENT"); a value out of range, text
// left over and an impossible day have messages of their own. Only the elements of the two
// layouts used by metav1 are modelled.

enum class Elem {
  kLongYear,      // 2006
  kZeroMonth,     // 01
  kZeroDay,       // 02
  kHour,          // 15
  kZeroMinute,    // 04
  kZeroSecond,    // 05
  kFracSecond6,   // .000000
  kISOColonZone,  // Z07:00
  kEnd,
};

struct Chunk {
  std::string_view prefix;  // literal layout text before the element
  Elem elem;
  std::string_view text;  // the element as written in the layout
};

constexpr Chunk kRFC3339Chunks[] = {
    {"", Elem::kLongYear, "2006"},       {"-", Elem::kZeroMonth, "01"},
    {"-", Elem::kZeroDay, "02"},         {"T", Elem::kHour, "15"},
    {":", Elem::kZeroMinute, "04"},      {":", Elem::kZeroSecond, "05"},
    {"", Elem::kISOColonZone, "Z07:00"}, {"", Elem::kEnd, ""},
};

constexpr Chunk kRFC3339MicroChunks[] = {
    {"", Elem::kLongYear, "2006"},
    {"-", Elem::kZeroMonth, "01"},
    {"-", Elem::kZeroDay, "02"},
    {"T", Elem::kHour, "15"},
    {":", Elem::kZeroMinute, "04"},
    {":", Elem::kZeroSecond, "05"},
    {"", Elem::kFracSecond6, ".000000"},
    {"", Elem::kISOColonZone, "Z07:00"},
    {"", Elem::kEnd, ""},
};

bool Digit(std::string_view s, size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; }

// Go's time-package quoting: control and non-ASCII bytes as \xHH, quote and backslash
// escaped.
std::string Quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c < 0x20 || c >= 0x80) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else {
      if (c == '"' || c == '\\') out += '\\';
      out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

// One or two digits (exactly two when fixed); false when there are too few.
bool GetNum(std::string_view& s, bool fixed, int& out) {
  if (!Digit(s, 0)) return false;
  if (!Digit(s, 1)) {
    if (fixed) return false;
    out = s[0] - '0';
    s.remove_prefix(1);
    return true;
  }
  out = (s[0] - '0') * 10 + (s[1] - '0');
  s.remove_prefix(2);
  return true;
}

// Go's time.atoi: an optional sign, then only digits (no overflow in the short texts here).
bool Atoi(std::string_view s, long long& out) {
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  long long x = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    x = x * 10 + (c - '0');
  }
  out = neg ? -x : x;
  return true;
}

bool Leap(long long year) { return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0); }

int DaysIn(int month, long long year) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2 && Leap(year)) return 29;
  return kDays[month - 1];
}

std::string CannotParse(std::string_view layout, std::string_view value, std::string_view rest,
                        std::string_view elem) {
  return "parsing time " + Quote(value) + " as " + Quote(layout) + ": cannot parse " + Quote(rest) +
         " as " + Quote(elem);
}

std::string WithMessage(std::string_view value, std::string_view message) {
  return "parsing time " + Quote(value) + std::string(message);
}

// ---- resource.ParseQuantity -------------------------------------------------------------

constexpr std::string_view kErrFormatWrong =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kErrNumeric = "unable to parse numeric part of quantity";
constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";

bool IsDigitChar(char c) { return c >= '0' && c <= '9'; }

// Strips what Go's strings.TrimSpace strips (Unicode white space) from both ends.
std::string_view TrimSpace(std::string_view s) {
  // Multi-byte UTF-8 white space: U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029,
  // U+202F, U+205F, U+3000.
  auto space_prefix = [](std::string_view t) -> size_t {
    if (t.empty()) return 0;
    unsigned char c = t[0];
    if (c == ' ' || (c >= '\t' && c <= '\r')) return 1;
    if (t.size() >= 2 && c == 0xC2 &&
        (static_cast<unsigned char>(t[1]) == 0x85 || static_cast<unsigned char>(t[1]) == 0xA0)) {
      return 2;
    }
    if (t.size() >= 3) {
      unsigned char c1 = t[1], c2 = t[2];
      if (c == 0xE1 && c1 == 0x9A && c2 == 0x80) return 3;
      if (c == 0xE2 && c1 == 0x80 && (c2 <= 0x8A || c2 == 0xA8 || c2 == 0xA9 || c2 == 0xAF)) {
        return 3;
      }
      if (c == 0xE2 && c1 == 0x81 && c2 == 0x9F) return 3;
      if (c == 0xE3 && c1 == 0x80 && c2 == 0x80) return 3;
    }
    return 0;
  };
  while (size_t n = space_prefix(s)) s.remove_prefix(n);
  // From the end: try the 1-, 2- and 3-byte forms.
  for (bool again = true; again && !s.empty();) {
    again = false;
    for (size_t n = 1; n <= 3 && n <= s.size(); ++n) {
      std::string_view tail = s.substr(s.size() - n);
      if (space_prefix(tail) == n) {
        s.remove_suffix(n);
        again = true;
        break;
      }
    }
  }
  return s;
}

}  // namespace

std::optional<std::string> GoTimeParseError(std::string_view layout, std::string_view input) {
  const bool micro = layout == kRFC3339Micro;
  const Chunk* chunks = micro ? kRFC3339MicroChunks : kRFC3339Chunks;
  std::string_view value = input;
  long long year = 0;
  int month = -1, day = -1;
  for (const Chunk* c = chunks;; ++c) {
    // The literal text before the element.
    for (char p : c->prefix) {
      if (value.empty() || value[0] != p) return CannotParse(layout, input, value, c->prefix);
      value.remove_prefix(1);
    }
    if (c->elem == Elem::kEnd) {
      if (!value.empty()) return WithMessage(input, ": extra text: " + Quote(value));
      break;
    }
    const std::string_view hold = value;
    bool bad = false;
    std::string_view range;  // the name in "... out of range"
    int n = 0;
    switch (c->elem) {
      case Elem::kLongYear:
        if (value.size() < 4 || !Digit(value, 0)) {
          bad = true;
          break;
        }
        bad = !Atoi(value.substr(0, 4), year);
        value.remove_prefix(4);
        break;
      case Elem::kZeroMonth:
        bad = !GetNum(value, true, n);
        if (!bad) {
          month = n;
          if (n <= 0 || n > 12) range = "month";
        }
        break;
      case Elem::kZeroDay:
        bad = !GetNum(value, true, n);
        if (!bad) day = n;
        break;
      case Elem::kHour:
        bad = !GetNum(value, false, n);
        if (n >= 24) range = "hour";
        break;
      case Elem::kZeroMinute:
        bad = !GetNum(value, true, n);
        if (n >= 60) range = "minute";
        break;
      case Elem::kZeroSecond:
        bad = !GetNum(value, true, n);
        if (bad) break;
        if (n >= 60) {
          range = "second";
          break;
        }
        // A fraction the layout does not have is taken here (digits only, so it always
        // parses); a layout with its own fraction element takes it there.
        if (!micro && value.size() >= 2 && (value[0] == '.' || value[0] == ',') &&
            Digit(value, 1)) {
          size_t end = 2;
          while (Digit(value, end)) ++end;
          value.remove_prefix(end);
        }
        break;
      case Elem::kFracSecond6: {
        constexpr size_t kWidth = 7;  // the separator and six digits
        if (value.size() < kWidth) {
          bad = true;
          break;
        }
        long long ns = 0;
        if (value[0] != '.' && value[0] != ',') {
          bad = true;
        } else if (!Atoi(value.substr(1, kWidth - 1), ns)) {
          bad = true;
        } else if (ns < 0) {
          range = "fractional second";
        }
        value.remove_prefix(kWidth);
        break;
      }
      case Elem::kISOColonZone: {
        if (!value.empty() && value[0] == 'Z') {
          value.remove_prefix(1);
          break;
        }
        if (value.size() < 6 || value[3] != ':') {
          bad = true;
          break;
        }
        std::string_view hh = value.substr(1, 2), mm = value.substr(4, 2);
        const char sign = value[0];
        value.remove_prefix(6);
        int hr = 0, min = 0;
        bad = !GetNum(hh, true, hr) || !GetNum(mm, true, min);
        if (hr > 24) range = "time zone offset hour";
        if (min > 60) range = "time zone offset minute";
        if (sign != '+' && sign != '-') bad = true;
        break;
      }
      case Elem::kEnd:
        break;
    }
    if (!range.empty()) return WithMessage(input, ": " + std::string(range) + " out of range");
    if (bad) return CannotParse(layout, input, hold, c->text);
  }
  if (day < 1 || day > DaysIn(month, year)) return WithMessage(input, ": day out of range");
  return std::nullopt;
}

std::optional<std::string> GoTimeCanonical(std::string_view layout, std::string_view value) {
  // value is valid: fixed-width date, 1-2 digit hour, fixed minute and second, an optional
  // fraction, then "Z" or a +hh:mm offset.
  auto number = [&value](size_t max_digits) {
    long long n = 0;
    for (size_t i = 0; i < max_digits && !value.empty() && Digit(value, 0); ++i) {
      n = n * 10 + (value[0] - '0');
      value.remove_prefix(1);
    }
    return n;
  };
  auto skip = [&value] {
    if (!value.empty()) value.remove_prefix(1);
  };
  const long long year = number(4);
  skip();
  const long long month = number(2);
  skip();
  const long long day = number(2);
  skip();
  const long long hour = number(2);
  skip();
  const long long minute = number(2);
  skip();
  const long long second = number(2);
  std::string micros = "000000";
  if (!value.empty() && (value[0] == '.' || value[0] == ',')) {
    skip();
    for (size_t i = 0; !value.empty() && Digit(value, 0); ++i) {
      if (i < micros.size()) micros[i] = value[0];
      value.remove_prefix(1);
    }
  }
  long long offset = 0;
  if (!value.empty() && value[0] != 'Z') {
    const long long sign = value[0] == '-' ? -1 : 1;
    skip();
    const long long oh = number(2);
    skip();
    offset = sign * (oh * 3600 + number(2) * 60);
  }
  const std::chrono::year_month_day date{std::chrono::year(static_cast<int>(year)),
                                         std::chrono::month(static_cast<unsigned>(month)),
                                         std::chrono::day(static_cast<unsigned>(day))};
  const long long seconds = std::chrono::sys_days(date).time_since_epoch().count() * 86400LL +
                            hour * 3600 + minute * 60 + second - offset;
  const auto days = std::chrono::floor<std::chrono::days>(std::chrono::seconds(seconds));
  const std::chrono::year_month_day utc{std::chrono::sys_days(days)};
  const long long in_day = seconds - days.count() * 86400LL;
  const int utc_year = static_cast<int>(utc.year());
  if (utc_year < 0 || utc_year > 9999) return std::nullopt;
  char out[40];
  std::snprintf(out, sizeof out, "%04d-%02u-%02uT%02lld:%02lld:%02lld", utc_year,
                static_cast<unsigned>(utc.month()), static_cast<unsigned>(utc.day()), in_day / 3600,
                in_day / 60 % 60, in_day % 60);
  std::string text = out;
  if (layout == kRFC3339Micro) text += "." + micros;
  return text + "Z";
}

std::optional<std::string> QuantityParseError(std::string_view text) {
  const std::string_view str = TrimSpace(text);
  if (str.empty()) return std::string(kErrFormatWrong);
  if (str == "0") return std::nullopt;

  // The scan: [+-] zeros digits [. digits] [eEinumkKMGTP]* [+-] digits.
  size_t pos = 0;
  const size_t end = str.size();
  if (str[0] == '-' || str[0] == '+') ++pos;
  while (pos < end && str[pos] == '0') ++pos;
  if (pos >= end) return std::nullopt;  // only a sign and zeros: zero
  const size_t num_start = pos;
  while (pos < end && IsDigitChar(str[pos])) ++pos;
  size_t num_len = pos - num_start;
  if (pos >= end) return std::nullopt;  // only digits
  if (num_len == 0) num_len = 1;        // "0"
  size_t denom_len = 0;
  if (str[pos] == '.') {
    ++pos;
    const size_t denom_start = pos;
    while (pos < end && IsDigitChar(str[pos])) ++pos;
    denom_len = pos - denom_start;
    if (pos >= end) return std::nullopt;  // digits and a fraction
  }
  const std::string_view number = str.substr(0, pos);
  const size_t suffix_start = pos;
  while (pos < end && std::string_view("eEinumkKMGTP").find(str[pos]) != std::string_view::npos) {
    ++pos;
  }
  if (pos < end && (str[pos] == '-' || str[pos] == '+')) ++pos;
  while (pos < end && IsDigitChar(str[pos])) ++pos;
  if (pos < end) return std::string(kErrFormatWrong);
  const std::string_view suffix = str.substr(suffix_start);

  const std::optional<util::Quantity::Suffix> interpreted = util::Quantity::ParseSuffix(suffix);
  if (!interpreted) return std::string(kErrSuffix);
  const int32_t exponent = interpreted->exponent;

  // The int64 fast path takes every quantity with few enough digits and a scale of at least
  // nano; the rest goes through an arbitrary-precision decimal, which needs a digit.
  constexpr int32_t kMaxInt64Factors = 18;
  int32_t precision = 0;
  int32_t scale = 0;
  if (interpreted->format == util::Quantity::Format::kBinarySI) {
    if (exponent >= 0 && denom_len == 0) {
      precision = 15 - static_cast<int32_t>(num_len) -
                  static_cast<int32_t>(static_cast<float>(exponent) * 3 / 10) - 1;
    } else {
      precision = -1;
    }
  } else {
    scale = exponent;
    precision = kMaxInt64Factors - static_cast<int32_t>(num_len + denom_len);
  }
  if (precision >= 0) {
    scale -= static_cast<int32_t>(denom_len);
    if (scale >= -9) {
      // num+denom has at most 18 digits: the product overflows only for large binary
      // suffixes, and then the slow path (which has digits) takes it.
      return std::nullopt;
    }
  }
  for (char c : number) {
    if (IsDigitChar(c)) return std::nullopt;
  }
  return std::string(kErrNumeric);
}

namespace {

// A valid quantity (white space trimmed as QuantityParseError trims it); std::nullopt when
// invalid or beyond what util::Quantity holds exactly (about 10^29).
std::optional<util::Quantity> ParseValid(std::string_view text) {
  if (QuantityParseError(text)) return std::nullopt;
  return util::Quantity::Parse(TrimSpace(text));
}

}  // namespace

std::optional<long double> QuantityAmount(std::string_view text) {
  std::optional<util::Quantity> q = ParseValid(text);
  if (!q) return std::nullopt;
  return static_cast<long double>(q->nano()) / 1e9L;
}

std::optional<std::string> QuantityCanonical(std::string_view text) {
  std::optional<util::Quantity> q = ParseValid(text);
  if (!q) return std::nullopt;
  return q->String();
}

}  // namespace apimachinery::schema
