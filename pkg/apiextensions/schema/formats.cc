#include "pkg/apiextensions/schema/formats.h"

#include <array>
#include <string>

#include "pkg/apiextensions/schema/format_checks.h"
#include "pkg/genericserver/apimachinery/regex/regex.h"
#include "pkg/util/duration.h"

namespace apiextensions::schema {

namespace {

// apiextensions-apiserver's supportedFormats at compatibility version 1.0 (all of 1.32's).
constexpr std::array<std::string_view, 24> kSupported = {
    "bsonobjectid", "uri",    "email",    "hostname",   "ipv4",     "ipv6",
    "cidr",         "mac",    "uuid",     "uuid3",      "uuid4",    "uuid5",
    "isbn",         "isbn10", "isbn13",   "creditcard", "ssn",      "hexcolor",
    "rgbcolor",     "byte",   "password", "date",       "duration", "datetime"};

// strfmt's expressions, matched with Go's regexp semantics.
constexpr std::string_view kHostnamePattern =
    R"(^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$)";
constexpr std::string_view kUUIDPattern =
    R"((?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$)";
constexpr std::string_view kUUID3Pattern =
    R"((?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$)";
constexpr std::string_view kUUID4Pattern =
    R"((?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$)";
constexpr std::string_view kUUID5Pattern =
    R"((?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$)";
// govalidator's.
constexpr std::string_view kRGBColorPattern =
    R"(^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$)";
constexpr std::string_view kCreditCardPattern =
    R"(^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$)";

bool Matches(std::string_view pattern, std::string_view value) {
  auto re = apimachinery::regex::Regex::CompileCached(pattern);
  return re && (*re)->MatchString(value);
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool IsHostname(std::string_view s) {
  if (!Matches(kHostnamePattern, s)) return false;
  if (s.size() > 255) return false;
  size_t start = 0;
  for (;;) {
    const size_t dot = s.find('.', start);
    const size_t end = dot == std::string_view::npos ? s.size() : dot;
    if (end - start > 63) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// govalidator.IsISBN: spaces and dashes removed, then the ISBN-10 or ISBN-13 checksum.
std::string WithoutSpacesAndDashes(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == '-') continue;
    out += c;
  }
  return out;
}

bool IsISBN10(std::string_view str) {
  const std::string s = WithoutSpacesAndDashes(str);
  if (s.size() != 10) return false;
  for (size_t i = 0; i < 9; ++i) {
    if (!IsDigit(s[i])) return false;
  }
  if (!IsDigit(s[9]) && s[9] != 'X') return false;
  int sum = 0;
  for (int i = 0; i < 9; ++i) sum += (i + 1) * (s[static_cast<size_t>(i)] - '0');
  sum += s[9] == 'X' ? 100 : 10 * (s[9] - '0');
  return sum % 11 == 0;
}

bool IsISBN13(std::string_view str) {
  const std::string s = WithoutSpacesAndDashes(str);
  if (s.size() != 13) return false;
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  int sum = 0;
  for (size_t i = 0; i < 12; ++i) sum += (i % 2 == 0 ? 1 : 3) * (s[i] - '0');
  return (s[12] - '0') - ((10 - (sum % 10)) % 10) == 0;
}

// govalidator.IsCreditCard: non-digits removed, the card pattern, then Luhn.
bool IsCreditCard(std::string_view str) {
  std::string s;
  for (char c : str) {
    if (IsDigit(c)) s += c;
  }
  if (!Matches(kCreditCardPattern, s)) return false;
  int sum = 0;
  bool twice = false;
  for (size_t i = s.size(); i-- > 0;) {
    int digit = s[i] - '0';
    if (twice) {
      digit *= 2;
      sum += digit >= 10 ? digit % 10 + 1 : digit;
    } else {
      sum += digit;
    }
    twice = !twice;
  }
  return sum % 10 == 0;
}

// govalidator.IsSSN: 11 characters matching ^\d{3}[- ]?\d{2}[- ]?\d{4}$.
bool IsSSN(std::string_view s) {
  if (s.size() != 11) return false;
  auto sep = [](char c) { return c == '-' || c == ' '; };
  for (size_t i : {0, 1, 2, 4, 5, 7, 8, 9, 10}) {
    if (!IsDigit(s[i])) return false;
  }
  return sep(s[3]) && sep(s[6]);
}

// govalidator.IsHexcolor: ^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$.
bool IsHexColor(std::string_view s) {
  if (!s.empty() && s[0] == '#') s.remove_prefix(1);
  if (s.size() != 3 && s.size() != 6) return false;
  for (char c : s) {
    if (!IsHexDigit(c)) return false;
  }
  return true;
}

bool IsBase64Char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || IsDigit(c) || c == '+' || c == '/';
}

// govalidator.IsBase64:
// ^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$
bool IsBase64(std::string_view s) {
  if (s.empty() || s.size() % 4 != 0) return false;
  const size_t body = s.size() - 4;
  for (size_t i = 0; i < body; ++i) {
    if (!IsBase64Char(s[i])) return false;
  }
  const std::string_view last = s.substr(body);
  if (!IsBase64Char(last[0]) || !IsBase64Char(last[1])) return false;
  if (last[2] == '=') return last[3] == '=';
  if (!IsBase64Char(last[2])) return false;
  return last[3] == '=' || IsBase64Char(last[3]);
}

bool LeapYear(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// time.Parse("2006-01-02", s) succeeds: four-digit year, two-digit month and day in range.
bool IsDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!IsDigit(s[i])) return false;
  }
  const int year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
  const int month = (s[5] - '0') * 10 + (s[6] - '0');
  const int day = (s[8] - '0') * 10 + (s[9] - '0');
  if (month < 1 || month > 12) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int days = kDays[month - 1];
  if (month == 2 && LeapYear(year)) days = 29;
  return day >= 1 && day <= days;
}

// strfmt.IsDateTime: lower-cased, split at every "t"; the first part a date, the second
// matching ^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$ with hours
// <= "23" and minutes, seconds <= "59" (string comparison).
bool IsDateTime(std::string_view str) {
  if (str.size() < 4) return false;
  std::string lower(str);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  const size_t t = lower.find('t');
  if (t == std::string::npos) return false;
  if (!IsDate(std::string_view(lower).substr(0, t))) return false;
  std::string_view s = std::string_view(lower).substr(t + 1);
  s = s.substr(0, s.find('t'));
  if (s.size() < 9) return false;
  for (size_t i : {0, 1, 3, 4, 6, 7}) {
    if (!IsDigit(s[i])) return false;
  }
  if (s[2] != ':' || s[5] != ':') return false;
  if (s.substr(0, 2) > "23" || s.substr(3, 2) > "59" || s.substr(6, 2) > "59") return false;
  std::string_view rest = s.substr(8);
  // (.[0-9]+)? — the '.' is any character; the group is optional, so try both ways.
  auto zone_ok = [](std::string_view z) {
    if (z == "z") return true;
    return z.size() == 6 && (z[0] == '+' || z[0] == '-') && IsDigit(z[1]) && IsDigit(z[2]) &&
           z[3] == ':' && IsDigit(z[4]) && IsDigit(z[5]);
  };
  if (zone_ok(rest)) return true;
  if (rest.empty()) return false;
  // Skip one rune (any character but a newline), then one or more digits.
  size_t i = 1;
  while (i < rest.size() && (static_cast<unsigned char>(rest[i]) & 0xC0) == 0x80) ++i;
  if (rest[0] == '\n') return false;
  const size_t digits_start = i;
  while (i < rest.size() && IsDigit(rest[i])) ++i;
  if (i == digits_start) return false;
  // Backtracking over the digits cannot help: the zone starts with 'z', '+' or '-'.
  return zone_ok(rest.substr(i));
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }

// strfmt.ParseDuration: time.ParseDuration, or the "<n> <unit>" form with units ns/nano,
// us/µs/micro, ms/milli, s/sec, m/min, h/hr/hour, d/day, w/wk/week (the last spelling of each
// also as a prefix, e.g. "hours").
bool IsDuration(std::string_view s) {
  if (util::ParseDuration(s)) return true;
  static const std::vector<std::vector<std::string_view>> kUnits = {
      {"ns", "nano"}, {"us", "\xC2\xB5s", "micro"}, {"ms", "milli"}, {"s", "sec"},
      {"m", "min"},   {"h", "hr", "hour"},          {"d", "day"},    {"w", "wk", "week"}};
  size_t i = 0;
  bool any_group = false, ok = false;
  while (i < s.size() && IsSpace(s[i])) ++i;
  while (i < s.size()) {
    const size_t digits_start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i == digits_start) return false;
    // strconv.Atoi fails beyond int64.
    std::string_view digits = s.substr(digits_start, i - digits_start);
    while (digits.size() > 1 && digits[0] == '0') digits.remove_prefix(1);
    if (digits.size() > 19 || (digits.size() == 19 && digits > "9223372036854775807")) {
      return false;
    }
    while (i < s.size() && IsSpace(s[i])) ++i;
    std::string unit;
    while (i < s.size()) {
      const char c = s[i];
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) {
        unit += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        ++i;
      } else if (c == '\xC2' && i + 1 < s.size() && s[i + 1] == '\xB5') {
        unit += "\xC2\xB5";
        i += 2;
      } else {
        break;
      }
    }
    if (unit.empty()) return false;
    while (i < s.size() && IsSpace(s[i])) ++i;
    any_group = true;
    for (const auto& variants : kUnits) {
      for (size_t k = 0; k < variants.size(); ++k) {
        const bool last = k + 1 == variants.size();
        if ((last && std::string_view(unit).starts_with(variants[k])) || unit == variants[k]) {
          ok = true;
        }
      }
    }
  }
  return any_group && ok;
}

bool IsBSONObjectID(std::string_view s) {
  if (s.size() != 24) return false;
  for (char c : s) {
    if (!IsHexDigit(c)) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> SupportedFormat(std::string_view format) {
  std::string normalized;
  for (char c : format) {
    if (c != '-') normalized += c;
  }
  for (std::string_view name : kSupported) {
    if (name == normalized) return normalized;
  }
  return std::nullopt;
}

bool ValidFormat(std::string_view name, std::string_view value) {
  if (name == "bsonobjectid") return IsBSONObjectID(value);
  if (name == "uri") return formats::IsRequestURI(value);
  if (name == "email") return formats::IsEmail(value);
  if (name == "hostname") return IsHostname(value);
  if (name == "ipv4") {
    return formats::ParseIPSloppy(value) && value.find('.') != std::string_view::npos;
  }
  if (name == "ipv6") return formats::ParseIP(value) && value.find(':') != std::string_view::npos;
  if (name == "cidr") return formats::ParseCIDRSloppy(value);
  if (name == "mac") return formats::ParseMAC(value);
  if (name == "uuid") return Matches(kUUIDPattern, value);
  if (name == "uuid3") return Matches(kUUID3Pattern, value);
  if (name == "uuid4") return Matches(kUUID4Pattern, value);
  if (name == "uuid5") return Matches(kUUID5Pattern, value);
  if (name == "isbn") return IsISBN10(value) || IsISBN13(value);
  if (name == "isbn10") return IsISBN10(value);
  if (name == "isbn13") return IsISBN13(value);
  if (name == "creditcard") return IsCreditCard(value);
  if (name == "ssn") return IsSSN(value);
  if (name == "hexcolor") return IsHexColor(value);
  if (name == "rgbcolor") return Matches(kRGBColorPattern, value);
  if (name == "byte") return IsBase64(value);
  if (name == "password") return true;
  if (name == "date") return IsDate(value);
  if (name == "duration") return IsDuration(value);
  if (name == "datetime") return IsDateTime(value);
  return true;
}

}  // namespace apiextensions::schema
