#include "pkg/apiextensions/schema/values.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace apiextensions::schema {

using nlohmann::json;
namespace v = apimachinery::validation;

namespace {

// The shortest decimal digits that round-trip f (no sign), and the decimal point position:
// f = 0.<digits> * 10^point, as strconv's decimal has it (1.5 -> "15", 1; 0.001 -> "1", -2).
struct Digits {
  std::string digits;
  int point = 0;
};

Digits ShortestDigits(double f) {
  Digits d;
  if (f == 0) {
    d.digits = "0";
    d.point = 1;
    return d;
  }
  char buf[64];
  auto [end, ec] =
      std::to_chars(buf, buf + sizeof buf, std::fabs(f), std::chars_format::scientific);
  std::string_view s(buf, ec == std::errc() ? static_cast<size_t>(end - buf) : 0);
  const size_t e = s.find('e');
  if (e == std::string_view::npos) {
    d.digits = "0";
    d.point = 1;
    return d;
  }
  for (char c : s.substr(0, e)) {
    if (c != '.') d.digits.push_back(c);
  }
  int exponent = 0;
  std::string_view exp = s.substr(e + 1);
  bool negative = false;
  if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) {
    negative = exp[0] == '-';
    exp.remove_prefix(1);
  }
  for (char c : exp) exponent = exponent * 10 + (c - '0');
  if (negative) exponent = -exponent;
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
  d.point = exponent + 1;
  return d;
}

// strconv's %e with the digits given: d.ddde+XX (at least two exponent digits).
std::string FormatE(bool negative, const Digits& d) {
  std::string out = negative ? "-" : "";
  out += d.digits[0];
  if (d.digits.size() > 1) {
    out += '.';
    out += d.digits.substr(1);
  }
  int exp = d.digits == "0" ? 0 : d.point - 1;
  out += 'e';
  out += exp < 0 ? '-' : '+';
  if (exp < 0) exp = -exp;
  if (exp < 10) out += '0';
  out += std::to_string(exp);
  return out;
}

// strconv's %f with exactly the digits given (no rounding needed: shortest digits).
std::string FormatF(bool negative, const Digits& d) {
  std::string out = negative ? "-" : "";
  const int nd = static_cast<int>(d.digits.size());
  if (d.point <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-d.point), '0');
    out += d.digits;
  } else if (d.point >= nd) {
    out += d.digits;
    out.append(static_cast<size_t>(d.point - nd), '0');
  } else {
    out += d.digits.substr(0, static_cast<size_t>(d.point));
    out += '.';
    out += d.digits.substr(static_cast<size_t>(d.point));
  }
  return out;
}

std::string NonFinite(double f) {
  if (std::isnan(f)) return "NaN";
  return f < 0 ? "-Inf" : "+Inf";
}

void AppendJSONString(std::string& out, std::string_view s) {
  static const char* kHex = "0123456789abcdef";
  out += '"';
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        default:
          if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 0xF];
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    const v::DecodedRune r = v::DecodeRune(s.substr(i));
    if (r.rune == 0xFFFD && r.size == 1) {
      out += "\\ufffd";
    } else if (r.rune == 0x2028 || r.rune == 0x2029) {
      out += r.rune == 0x2028 ? "\\u2028" : "\\u2029";
    } else {
      out.append(s.substr(i, r.size));
    }
    i += r.size;
  }
  out += '"';
}

void AppendJSON(std::string& out, const json& value) {
  switch (KindOf(value)) {
    case GoKind::kNull:
      out += "null";
      return;
    case GoKind::kBool:
      out += value.get<bool>() ? "true" : "false";
      return;
    case GoKind::kInt64:
      out += std::to_string(AsInt64(value));
      return;
    case GoKind::kFloat64:
      out += GoJSONFloat(AsFloat64(value));
      return;
    case GoKind::kString:
      AppendJSONString(out, value.get_ref<const std::string&>());
      return;
    case GoKind::kSlice: {
      out += '[';
      bool first = true;
      for (const json& item : value) {
        if (!first) out += ',';
        first = false;
        AppendJSON(out, item);
      }
      out += ']';
      return;
    }
    case GoKind::kMap: {
      out += '{';
      bool first = true;
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (!first) out += ',';
        first = false;
        AppendJSONString(out, it.key());
        out += ':';
        AppendJSON(out, it.value());
      }
      out += '}';
      return;
    }
  }
}

void AppendSharpV(std::string& out, const json& value) {
  switch (KindOf(value)) {
    case GoKind::kNull:
      out += "interface {}(nil)";
      return;
    case GoKind::kString:
      out += v::GoQuote(value.get_ref<const std::string&>());
      return;
    case GoKind::kBool:
    case GoKind::kInt64:
    case GoKind::kFloat64:
      out += GoScalarV(value);
      return;
    case GoKind::kSlice: {
      out += "[]interface {}{";
      bool first = true;
      for (const json& item : value) {
        if (!first) out += ", ";
        first = false;
        AppendSharpV(out, item);
      }
      out += '}';
      return;
    }
    case GoKind::kMap: {
      out += "map[string]interface {}{";
      bool first = true;
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (!first) out += ", ";
        first = false;
        out += v::GoQuote(it.key());
        out += ':';
        AppendSharpV(out, it.value());
      }
      out += '}';
      return;
    }
  }
}

}  // namespace

GoKind KindOf(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
    case json::value_t::discarded:
    case json::value_t::binary:  // never produced by parsing JSON text
      return GoKind::kNull;
    case json::value_t::boolean:
      return GoKind::kBool;
    case json::value_t::number_integer:
      return GoKind::kInt64;
    case json::value_t::number_unsigned:
      // Beyond int64 strconv.ParseInt fails and the decoder falls back to float64.
      return value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                 ? GoKind::kFloat64
                 : GoKind::kInt64;
    case json::value_t::number_float:
      return GoKind::kFloat64;
    case json::value_t::string:
      return GoKind::kString;
    case json::value_t::array:
      return GoKind::kSlice;
    case json::value_t::object:
      return GoKind::kMap;
  }
  return GoKind::kNull;
}

double AsFloat64(const json& value) {
  switch (value.type()) {
    case json::value_t::number_integer:
      return static_cast<double>(value.get<int64_t>());
    case json::value_t::number_unsigned:
      return static_cast<double>(value.get<uint64_t>());
    case json::value_t::number_float:
      return value.get<double>();
    default:
      return 0;
  }
}

int64_t AsInt64(const json& value) {
  switch (value.type()) {
    case json::value_t::number_integer:
      return value.get<int64_t>();
    case json::value_t::number_unsigned:
      return static_cast<int64_t>(value.get<uint64_t>());
    default:
      return 0;
  }
}

int64_t GoFloatToInt64(double f) {
  // 2^63 is exactly representable; everything at or beyond it (and NaN) is out of range.
  constexpr double kLimit = 9223372036854775808.0;
  if (std::isnan(f) || f >= kLimit || f < -kLimit) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(f);
}

std::string GoFloatV(double f) {
  if (!std::isfinite(f)) return NonFinite(f);
  const Digits d = ShortestDigits(f);
  const bool negative = std::signbit(f);
  const int exp = d.point - 1;
  if (d.digits != "0" && (exp < -4 || exp >= 6)) return FormatE(negative, d);
  return FormatF(negative, d);
}

std::string GoJSONFloat(double f) {
  if (!std::isfinite(f)) return NonFinite(f);
  const double abs = std::fabs(f);
  const Digits d = ShortestDigits(f);
  const bool negative = std::signbit(f);
  if (abs != 0 && (abs < 1e-6 || abs >= 1e21)) {
    std::string out = FormatE(negative, d);
    // encoding/json cleans up e-09 to e-9.
    const size_t n = out.size();
    if (n >= 4 && out[n - 4] == 'e' && out[n - 3] == '-' && out[n - 2] == '0') {
      out.erase(n - 2, 1);
    }
    return out;
  }
  return FormatF(negative, d);
}

std::string GoScalarV(const json& value) {
  switch (KindOf(value)) {
    case GoKind::kBool:
      return value.get<bool>() ? "true" : "false";
    case GoKind::kInt64:
      return std::to_string(AsInt64(value));
    case GoKind::kFloat64:
      return GoFloatV(AsFloat64(value));
    default:
      return GoSharpV(value);
  }
}

std::string GoSharpV(const json& value) {
  std::string out;
  AppendSharpV(out, value);
  return out;
}

std::string GoJSONMarshal(const json& value) {
  std::string out;
  AppendJSON(out, value);
  return out;
}

void SetBadValue(v::FieldError& error, const json& value) {
  switch (KindOf(value)) {
    case GoKind::kNull:
      error.bad_value = "null";
      error.value_form = v::ValueForm::kQuoted;
      return;
    case GoKind::kString:
      error.bad_value = value.get<std::string>();
      error.value_form = v::ValueForm::kQuoted;
      return;
    case GoKind::kBool:
    case GoKind::kInt64:
    case GoKind::kFloat64:
      error.bad_value = GoScalarV(value);
      error.value_form = v::ValueForm::kVerbatim;
      return;
    case GoKind::kSlice:
    case GoKind::kMap:
      error.bad_value = GoSharpV(value);
      error.value_form = v::ValueForm::kVerbatim;
      return;
  }
}

void SetBadValueInt(v::FieldError& error, int64_t value) {
  error.bad_value = std::to_string(value);
  error.value_form = v::ValueForm::kVerbatim;
}

}  // namespace apiextensions::schema
