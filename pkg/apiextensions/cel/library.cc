// The CEL function library for CRD validation rules: every overload's signature and
// implementation. Runtime error texts are cel-go's where known ("no such overload",
// "integer overflow", "division by zero", "index out of range: 5", ...); the Kubernetes
// libraries' texts are upstream's ("min called on empty list", "cannot convert value to
// integer", "URL parse error during conversion from string: ...").
//
// Costs follow the spirit of cel-go's and Kubernetes' cost model: 1 per call plus a share of
// the size of strings and lists traversed (0.1 per byte, 1 per list element, regex matching
// as string cost x pattern cost).

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>

#include "pkg/apiextensions/cel/functions.h"
#include "pkg/genericserver/apimachinery/gourl/url.h"
#include "pkg/genericserver/apimachinery/regex/regex.h"
#include "pkg/genericserver/apimachinery/schema/go_values.h"

namespace apiextensions::cel {

namespace {

using apimachinery::regex::Regex;
using Args = std::vector<Value>;

int64_t StrCost(size_t len) {
  return static_cast<int64_t>(std::ceil(0.1 * static_cast<double>(len)));
}

// --- UTF-8 helpers ------------------------------------------------------------------------

size_t CpLen(unsigned char c) {
  if (c < 0x80) return 1;
  if (c >= 0xF0) return 4;
  if (c >= 0xE0) return 3;
  if (c >= 0xC0) return 2;
  return 1;
}

// Byte offsets of each code point start, plus the end.
std::vector<size_t> CpOffsets(std::string_view s) {
  std::vector<size_t> out;
  for (size_t i = 0; i < s.size();) {
    out.push_back(i);
    i += std::min(CpLen(static_cast<unsigned char>(s[i])), s.size() - i);
  }
  out.push_back(s.size());
  return out;
}

int64_t CpCount(std::string_view s) {
  int64_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

bool ValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80                  ? 1
                 : (c >= 0xC2 && c < 0xE0) ? 2
                 : (c >= 0xE0 && c < 0xF0) ? 3
                 : (c >= 0xF0 && c < 0xF5) ? 4
                                           : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += len;
  }
  return true;
}

// --- Registry -------------------------------------------------------------------------------

using Registry = std::unordered_map<std::string, std::vector<Overload>>;

class Builder {
 public:
  explicit Builder(Registry& r) : r_(r) {}
  void Global(const std::string& fn, std::vector<TypePtr> params, TypePtr result, Impl impl,
              std::vector<TypeKind> a_allowed = {}) {
    r_[fn].push_back(Overload{fn, false, std::move(params), std::move(result), std::move(impl),
                              std::move(a_allowed)});
  }
  void Member(const std::string& fn, std::vector<TypePtr> params, TypePtr result, Impl impl,
              std::vector<TypeKind> a_allowed = {}) {
    r_[fn].push_back(Overload{fn, true, std::move(params), std::move(result), std::move(impl),
                              std::move(a_allowed)});
  }

 private:
  Registry& r_;
};

// --- Arithmetic -------------------------------------------------------------------------------

Value IntOverflow() { return Value::Error("integer overflow"); }
Value UintOverflow() { return Value::Error("unsigned integer overflow"); }

constexpr int64_t kNanosPerSecond = 1000000000;
// Timestamps are limited to years 0001..9999 as in CEL.
constexpr int64_t kMinTimestampSeconds = -62135596800;
constexpr int64_t kMaxTimestampSeconds = 253402300799;

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

Value AddTsDur(const Value& ts, int64_t dur) {
  int64_t secs = dur / kNanosPerSecond;
  int64_t nanos = dur % kNanosPerSecond;
  int64_t s;
  if (__builtin_add_overflow(ts.i, secs, &s)) return IntOverflow();
  return MakeTimestamp(s, ts.nanos + nanos);
}

Value Concat(EvalContext& ctx, const Value& a, const Value& b) {
  const auto& la = a.items();
  const auto& lb = b.items();
  ctx.AddCost(1 + StrCost(la.size() + lb.size()));
  std::vector<Value> out;
  ListType type = a.list->list_type;
  if (type == ListType::kSet) {
    out = la;
    for (const auto& y : lb) {
      bool found = false;
      for (const auto& x : la) {
        if (Equal(x, y).IsTrue()) {
          found = true;
          break;
        }
      }
      ctx.AddCost(static_cast<int64_t>(la.size() / 10));
      if (!found) out.push_back(y);
    }
    return Value::List(std::move(out), type);
  }
  if (type == ListType::kMap) {
    // Map lists merge by their keys: an element of b replaces a's element with the same keys.
    const auto& keys = a.list->map_keys;
    auto key_of = [&](const Value& v) {
      std::vector<Value> k;
      if (v.kind != Kind::kObject && v.kind != Kind::kMap) return k;
      for (const auto& name : keys) {
        const Value* f = v.map->FindString(name);
        k.push_back(f ? *f : Value::Null());
      }
      return k;
    };
    out = la;
    for (const auto& y : lb) {
      auto ky = key_of(y);
      bool replaced = false;
      for (auto& x : out) {
        auto kx = key_of(x);
        bool same = kx.size() == ky.size() && !kx.empty();
        for (size_t k = 0; same && k < kx.size(); ++k) same = Equal(kx[k], ky[k]).IsTrue();
        if (same) {
          x = y;
          replaced = true;
          break;
        }
      }
      ctx.AddCost(static_cast<int64_t>(out.size() / 10));
      if (!replaced) out.push_back(y);
    }
    return Value::List(std::move(out), type, keys);
  }
  out.reserve(la.size() + lb.size());
  out.insert(out.end(), la.begin(), la.end());
  out.insert(out.end(), lb.begin(), lb.end());
  return Value::List(std::move(out));
}

// --- Time -----------------------------------------------------------------------------------

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

// --- Strings library helpers ----------------------------------------------------------------

std::string TrimSpaceUnicode(std::string_view s) {
  auto is_space_at = [&](size_t i, size_t* len) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == ' ' || (c >= '\t' && c <= '\r')) {
      *len = 1;
      return true;
    }
    if (c == 0xC2 && i + 1 < s.size() &&
        (static_cast<unsigned char>(s[i + 1]) == 0x85 ||
         static_cast<unsigned char>(s[i + 1]) == 0xA0)) {
      *len = 2;
      return true;
    }
    if (c == 0xE2 && i + 2 < s.size()) {
      auto c1 = static_cast<unsigned char>(s[i + 1]), c2 = static_cast<unsigned char>(s[i + 2]);
      if (c1 == 0x80 && ((c2 >= 0x80 && c2 <= 0x8A) || c2 == 0xA8 || c2 == 0xA9 || c2 == 0xAF)) {
        *len = 3;
        return true;
      }
      if (c1 == 0x81 && c2 == 0x9F) {
        *len = 3;
        return true;
      }
    }
    if (c == 0xE3 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
        static_cast<unsigned char>(s[i + 2]) == 0x80) {
      *len = 3;
      return true;
    }
    if (c == 0xE1 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x9A &&
        static_cast<unsigned char>(s[i + 2]) == 0x80) {
      *len = 3;
      return true;
    }
    return false;
  };
  size_t start = 0;
  size_t len;
  while (start < s.size() && is_space_at(start, &len)) start += len;
  size_t end = s.size();
  while (end > start) {
    // Find the start of the last code point.
    size_t q = end - 1;
    while (q > start && (static_cast<unsigned char>(s[q]) & 0xC0) == 0x80) --q;
    if (is_space_at(q, &len) && q + len == end) {
      end = q;
    } else {
      break;
    }
  }
  return std::string(s.substr(start, end - start));
}

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
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
      case '\v':
        out += "\\v";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      default: {
        size_t len = CpLen(c);
        if (i + len > s.size() || !ValidUtf8(s.substr(i, len))) {
          out += "\xEF\xBF\xBD";
          ++i;
          continue;
        }
        out.append(s.substr(i, len));
        i += len;
        continue;
      }
    }
    ++i;
  }
  return out + "\"";
}

// Go's strings.Replace(s, old, new, n).
std::string Replace(std::string_view s, std::string_view from, std::string_view to, int64_t n) {
  if (n == 0 || (from == to)) return std::string(s);
  std::string out;
  size_t pos = 0;
  int64_t done = 0;
  if (from.empty()) {
    // Inserts `to` before every code point and at the end.
    auto offs = CpOffsets(s);
    for (size_t k = 0; k + 1 < offs.size(); ++k) {
      if (n < 0 || done < n) {
        out += to;
        ++done;
      }
      out.append(s.substr(offs[k], offs[k + 1] - offs[k]));
    }
    if (n < 0 || done < n) out += to;
    return out;
  }
  while (n < 0 || done < n) {
    size_t at = s.find(from, pos);
    if (at == std::string_view::npos) break;
    out.append(s.substr(pos, at - pos));
    out += to;
    pos = at + from.size();
    ++done;
  }
  out.append(s.substr(pos));
  return out;
}

// Go's strings.SplitN(s, sep, n).
std::vector<Value> Split(std::string_view s, std::string_view sep, int64_t n) {
  std::vector<Value> out;
  if (n == 0) return out;
  if (sep.empty()) {
    auto offs = CpOffsets(s);
    size_t count = offs.size() - 1;
    for (size_t k = 0; k < count; ++k) {
      if (n > 0 && static_cast<int64_t>(out.size()) == n - 1) {
        out.push_back(Value::String(std::string(s.substr(offs[k]))));
        return out;
      }
      out.push_back(Value::String(std::string(s.substr(offs[k], offs[k + 1] - offs[k]))));
    }
    return out;
  }
  size_t pos = 0;
  while (true) {
    if (n > 0 && static_cast<int64_t>(out.size()) == n - 1) break;
    size_t at = s.find(sep, pos);
    if (at == std::string_view::npos) break;
    out.push_back(Value::String(std::string(s.substr(pos, at - pos))));
    pos = at + sep.size();
  }
  out.push_back(Value::String(std::string(s.substr(pos))));
  return out;
}

int64_t RegexCost(size_t str_len, size_t pattern_len) {
  auto str_cost = static_cast<int64_t>(std::ceil((1.0 + static_cast<double>(str_len)) * 0.1));
  auto re_cost = static_cast<int64_t>(std::ceil(static_cast<double>(pattern_len) * 0.25));
  return std::max<int64_t>(1, str_cost * std::max<int64_t>(1, re_cost));
}

// --- URLs (Go's net/url as Kubernetes' url library uses it) -----------------------------------

std::string Unescape(std::string_view s, bool plus_space, bool* ok) {
  std::string out;
  *ok = true;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      if (i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
          std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
        out.push_back(static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
        i += 2;
      } else {
        *ok = false;
        return "";
      }
    } else if (s[i] == '+' && plus_space) {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// --- format() ---------------------------------------------------------------------------------

std::string FormatClauseValue(const Value& v, char verb, int precision, std::string* err) {
  switch (verb) {
    case 's': {
      if (v.kind == Kind::kList) {
        std::string out = "[";
        for (size_t k = 0; k < v.items().size(); ++k) {
          if (k > 0) out += ", ";
          const Value& e = v.items()[k];
          std::string s = FormatClauseValue(e, 's', -1, err);
          if (!err->empty()) return "";
          out += e.kind == Kind::kString ? Quote(s) : s;
        }
        return out + "]";
      }
      if (v.kind == Kind::kMap) {
        std::vector<std::pair<std::string, std::string>> entries;
        for (const auto& [k, val] : v.map->entries) {
          std::string ks = FormatClauseValue(k, 's', -1, err);
          std::string vs = FormatClauseValue(val, 's', -1, err);
          if (!err->empty()) return "";
          entries.emplace_back(k.kind == Kind::kString ? Quote(ks) : ks,
                               val.kind == Kind::kString ? Quote(vs) : vs);
        }
        std::sort(entries.begin(), entries.end());
        std::string out = "{";
        for (size_t k = 0; k < entries.size(); ++k) {
          if (k > 0) out += ", ";
          out += entries[k].first + ": " + entries[k].second;
        }
        return out + "}";
      }
      if (v.kind == Kind::kNull) return "null";
      if (v.kind == Kind::kType) return v.str();
      Value s = StringOf(v);
      if (s.IsError()) {
        *err =
            "error during formatting: string clause can only be used on strings, bools, bytes, "
            "ints, doubles, maps, lists, types, durations, and timestamps, was given " +
            TypeName(v);
        return "";
      }
      return s.str();
    }
    case 'd': {
      if (v.kind == Kind::kInt) return std::to_string(v.i);
      if (v.kind == Kind::kUint) return std::to_string(v.u);
      if (v.kind == Kind::kDouble) {
        if (std::isnan(v.d)) return "NaN";
        if (std::isinf(v.d)) return v.d > 0 ? "Infinity" : "-Infinity";
      }
      *err = "error during formatting: decimal clause can only be used on integers, was given " +
             TypeName(v);
      return "";
    }
    case 'f':
    case 'e': {
      double d;
      if (v.kind == Kind::kDouble) {
        d = v.d;
      } else if (v.kind == Kind::kInt) {
        d = static_cast<double>(v.i);
      } else if (v.kind == Kind::kUint) {
        d = static_cast<double>(v.u);
      } else {
        *err = std::string("error during formatting: ") +
               (verb == 'f' ? "fixed-point" : "scientific") +
               " clause can only be used on doubles, was given " + TypeName(v);
        return "";
      }
      if (std::isnan(d)) return "NaN";
      if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
      char buf[512];
      std::string fmt = "%." + std::to_string(precision < 0 ? 6 : std::min(precision, 100)) + verb;
      std::snprintf(buf, sizeof(buf), fmt.c_str(), d);
      return buf;
    }
    case 'b':
    case 'o':
    case 'x':
    case 'X': {
      int base = verb == 'b' ? 2 : verb == 'o' ? 8 : 16;
      if (v.kind == Kind::kInt || v.kind == Kind::kUint) {
        bool neg = v.kind == Kind::kInt && v.i < 0;
        uint64_t m = v.kind == Kind::kUint
                         ? v.u
                         : (neg ? 0 - static_cast<uint64_t>(v.i) : static_cast<uint64_t>(v.i));
        std::string digits;
        do {
          int d = static_cast<int>(m % static_cast<uint64_t>(base));
          digits.push_back(
              static_cast<char>(d < 10 ? '0' + d : (verb == 'X' ? 'A' : 'a') + d - 10));
          m /= static_cast<uint64_t>(base);
        } while (m > 0);
        std::reverse(digits.begin(), digits.end());
        return (neg ? "-" : "") + digits;
      }
      if ((verb == 'x' || verb == 'X') && (v.kind == Kind::kString || v.kind == Kind::kBytes)) {
        std::string out;
        const char* hex = verb == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
        for (char c : v.str()) {
          out.push_back(hex[(static_cast<unsigned char>(c) >> 4) & 0xF]);
          out.push_back(hex[static_cast<unsigned char>(c) & 0xF]);
        }
        return out;
      }
      if (verb == 'b' && v.kind == Kind::kBool) return v.b ? "1" : "0";
      *err = "error during formatting: only integers" +
             std::string(verb == 'x' || verb == 'X' ? ", byte buffers, and strings" : "") +
             " can be formatted as " +
             (verb == 'b'   ? "binary"
              : verb == 'o' ? "octal"
                            : "hex") +
             ", was given " + TypeName(v);
      return "";
    }
  }
  *err = "could not parse formatting clause: unrecognized formatting clause \"" +
         std::string(1, verb) + "\"";
  return "";
}

Value Format(EvalContext& ctx, const std::string& fmt, const Value& list) {
  std::string out;
  size_t arg = 0;
  const auto& items = list.items();
  ctx.AddCost(1 + StrCost(fmt.size()));
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out.push_back(fmt[i]);
      continue;
    }
    ++i;
    if (i >= fmt.size())
      return Value::Error("could not parse formatting clause: unexpected end of string");
    if (fmt[i] == '%') {
      out.push_back('%');
      continue;
    }
    int precision = -1;
    if (fmt[i] == '.') {
      ++i;
      precision = 0;
      while (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i]))) {
        precision = std::min(precision * 10 + (fmt[i] - '0'), 1000);
        ++i;
      }
      if (i >= fmt.size())
        return Value::Error("could not parse formatting clause: unexpected end of string");
    }
    if (arg >= items.size()) {
      return Value::Error("index " + std::to_string(arg) + " out of range");
    }
    std::string err;
    std::string s = FormatClauseValue(items[arg++], fmt[i], precision, &err);
    if (!err.empty()) return Value::Error(err);
    ctx.AddCost(StrCost(s.size()));
    out += s;
  }
  return Value::String(std::move(out));
}

// --- Quantity -----------------------------------------------------------------------------------

Value MakeQuantity(std::string_view text) {
  if (auto err = apimachinery::schema::QuantityParseError(text)) return Value::Error(*err);
  auto amount = apimachinery::schema::QuantityAmount(text);
  if (!amount)
    return Value::Error("quantity out of the range supported here: " + std::string(text));
  auto canonical = apimachinery::schema::QuantityCanonical(text);
  return Value::Quantity(canonical ? *canonical : std::string(text), *amount);
}

Value QuantityFromAmount(long double amount) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.9Lf", amount);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return Value::Quantity(s, amount);
}

// --- Lists library --------------------------------------------------------------------------

bool SameKindComparable(const Value& a, const Value& b) { return Compare(a, b) != 2; }

Value ListMinMax(EvalContext& ctx, const Value& list, bool want_min) {
  const auto& items = list.items();
  ctx.AddCost(1 + static_cast<int64_t>(items.size()));
  if (items.empty())
    return Value::Error(std::string(want_min ? "min" : "max") + " called on empty list");
  const Value* best = &items[0];
  for (size_t k = 1; k < items.size(); ++k) {
    int c = Compare(*best, items[k]);
    if (c == 2) return Value::NoSuchOverload();
    if ((want_min && c == 1) || (!want_min && c == -1)) best = &items[k];
  }
  return *best;
}

}  // namespace

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

Value StringOf(const Value& v) {
  switch (v.kind) {
    case Kind::kString:
      return v;
    case Kind::kInt:
      return Value::String(std::to_string(v.i));
    case Kind::kUint:
      return Value::String(std::to_string(v.u));
    case Kind::kDouble:
      return Value::String(FormatDouble(v.d));
    case Kind::kBool:
      return Value::String(v.b ? "true" : "false");
    case Kind::kBytes:
      if (!ValidUtf8(v.str()))
        return Value::Error("invalid UTF-8 in bytes, cannot convert to string");
      return Value::String(v.str());
    case Kind::kTimestamp:
      return Value::String(FormatTimestamp(v));
    case Kind::kDuration:
      return Value::String(FormatDuration(v.i));
    case Kind::kType:
      return Value::String(v.str());
    default:
      return Value::Error("type conversion error from '" + TypeName(v) + "' to 'string'");
  }
}

bool IsQualifiedFunction(std::string_view name) {
  return name == "optional.of" || name == "optional.none" || name == "optional.ofNonZeroValue" ||
         name == "sets.contains" || name == "sets.equivalent" || name == "sets.intersects" ||
         name == "strings.quote" || name == "ip.isCanonical";
}

bool RuntimeMatches(const Overload& o, const std::vector<Value>& args) {
  if (o.params.size() != args.size()) return false;
  for (size_t k = 0; k < args.size(); ++k) {
    const Value& v = args[k];
    switch (o.params[k]->kind) {
      case TypeKind::kDyn:
      case TypeKind::kParam:
        break;
      case TypeKind::kNull:
        if (v.kind != Kind::kNull) return false;
        break;
      case TypeKind::kBool:
        if (v.kind != Kind::kBool) return false;
        break;
      case TypeKind::kInt:
        if (v.kind != Kind::kInt) return false;
        break;
      case TypeKind::kUint:
        if (v.kind != Kind::kUint) return false;
        break;
      case TypeKind::kDouble:
        if (v.kind != Kind::kDouble) return false;
        break;
      case TypeKind::kString:
        if (v.kind != Kind::kString) return false;
        break;
      case TypeKind::kBytes:
        if (v.kind != Kind::kBytes) return false;
        break;
      case TypeKind::kDuration:
        if (v.kind != Kind::kDuration) return false;
        break;
      case TypeKind::kTimestamp:
        if (v.kind != Kind::kTimestamp) return false;
        break;
      case TypeKind::kList:
        if (v.kind != Kind::kList) return false;
        break;
      case TypeKind::kMap:
        if (v.kind != Kind::kMap) return false;
        break;
      case TypeKind::kObject:
        if (v.kind != Kind::kObject) return false;
        break;
      case TypeKind::kType:
        if (v.kind != Kind::kType) return false;
        break;
      case TypeKind::kQuantity:
        if (v.kind != Kind::kQuantity) return false;
        break;
      case TypeKind::kUrl:
        if (v.kind != Kind::kUrl) return false;
        break;
      case TypeKind::kIP:
        if (v.kind != Kind::kIP) return false;
        break;
      case TypeKind::kCIDR:
        if (v.kind != Kind::kCIDR) return false;
        break;
      case TypeKind::kOptional:
        if (v.kind != Kind::kOptional) return false;
        break;
      case TypeKind::kError:
        return false;
    }
  }
  return true;
}

namespace {

void RegisterOperators(Builder& b) {
  auto A = Param("A");
  auto K = Param("K");
  auto V = Param("V");
  auto I = IntType(), U = UintType(), D = DoubleType(), S = StringType(), B = BoolType(),
       Y = BytesType();
  auto Dur = DurationType(), Ts = TimestampType();

  // +
  b.Global("_+_", {I, I}, I, [](EvalContext&, const Args& a) {
    int64_t r;
    if (__builtin_add_overflow(a[0].i, a[1].i, &r)) return IntOverflow();
    return Value::Int(r);
  });
  b.Global("_+_", {U, U}, U, [](EvalContext&, const Args& a) {
    uint64_t r;
    if (__builtin_add_overflow(a[0].u, a[1].u, &r)) return UintOverflow();
    return Value::Uint(r);
  });
  b.Global("_+_", {D, D}, D,
           [](EvalContext&, const Args& a) { return Value::Double(a[0].d + a[1].d); });
  b.Global("_+_", {S, S}, S, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[0].str().size() + a[1].str().size()));
    return Value::String(a[0].str() + a[1].str());
  });
  b.Global("_+_", {Y, Y}, Y, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[0].str().size() + a[1].str().size()));
    return Value::Bytes(a[0].str() + a[1].str());
  });
  b.Global("_+_", {ListOf(A), ListOf(A)}, ListOf(A),
           [](EvalContext& ctx, const Args& a) { return Concat(ctx, a[0], a[1]); });
  b.Global("_+_", {Ts, Dur}, Ts,
           [](EvalContext&, const Args& a) { return AddTsDur(a[0], a[1].i); });
  b.Global("_+_", {Dur, Ts}, Ts,
           [](EvalContext&, const Args& a) { return AddTsDur(a[1], a[0].i); });
  b.Global("_+_", {Dur, Dur}, Dur, [](EvalContext&, const Args& a) {
    int64_t r;
    if (__builtin_add_overflow(a[0].i, a[1].i, &r)) return IntOverflow();
    return Value::Duration(r);
  });
  // -
  b.Global("_-_", {I, I}, I, [](EvalContext&, const Args& a) {
    int64_t r;
    if (__builtin_sub_overflow(a[0].i, a[1].i, &r)) return IntOverflow();
    return Value::Int(r);
  });
  b.Global("_-_", {U, U}, U, [](EvalContext&, const Args& a) {
    uint64_t r;
    if (__builtin_sub_overflow(a[0].u, a[1].u, &r)) return UintOverflow();
    return Value::Uint(r);
  });
  b.Global("_-_", {D, D}, D,
           [](EvalContext&, const Args& a) { return Value::Double(a[0].d - a[1].d); });
  b.Global("_-_", {Ts, Ts}, Dur, [](EvalContext&, const Args& a) {
    __int128 n =
        (static_cast<__int128>(a[0].i) - a[1].i) * kNanosPerSecond + (a[0].nanos - a[1].nanos);
    if (n > std::numeric_limits<int64_t>::max() || n < std::numeric_limits<int64_t>::min())
      return IntOverflow();
    return Value::Duration(static_cast<int64_t>(n));
  });
  b.Global("_-_", {Ts, Dur}, Ts, [](EvalContext&, const Args& a) {
    if (a[1].i == std::numeric_limits<int64_t>::min()) return IntOverflow();
    return AddTsDur(a[0], -a[1].i);
  });
  b.Global("_-_", {Dur, Dur}, Dur, [](EvalContext&, const Args& a) {
    int64_t r;
    if (__builtin_sub_overflow(a[0].i, a[1].i, &r)) return IntOverflow();
    return Value::Duration(r);
  });
  // * / %
  b.Global("_*_", {I, I}, I, [](EvalContext&, const Args& a) {
    int64_t r;
    if (__builtin_mul_overflow(a[0].i, a[1].i, &r)) return IntOverflow();
    return Value::Int(r);
  });
  b.Global("_*_", {U, U}, U, [](EvalContext&, const Args& a) {
    uint64_t r;
    if (__builtin_mul_overflow(a[0].u, a[1].u, &r)) return UintOverflow();
    return Value::Uint(r);
  });
  b.Global("_*_", {D, D}, D,
           [](EvalContext&, const Args& a) { return Value::Double(a[0].d * a[1].d); });
  b.Global("_/_", {I, I}, I, [](EvalContext&, const Args& a) {
    if (a[1].i == 0) return Value::Error("division by zero");
    if (a[0].i == std::numeric_limits<int64_t>::min() && a[1].i == -1) return IntOverflow();
    return Value::Int(a[0].i / a[1].i);
  });
  b.Global("_/_", {U, U}, U, [](EvalContext&, const Args& a) {
    if (a[1].u == 0) return Value::Error("division by zero");
    return Value::Uint(a[0].u / a[1].u);
  });
  b.Global("_/_", {D, D}, D,
           [](EvalContext&, const Args& a) { return Value::Double(a[0].d / a[1].d); });
  b.Global("_%_", {I, I}, I, [](EvalContext&, const Args& a) {
    if (a[1].i == 0) return Value::Error("modulus by zero");
    if (a[0].i == std::numeric_limits<int64_t>::min() && a[1].i == -1) return IntOverflow();
    return Value::Int(a[0].i % a[1].i);
  });
  b.Global("_%_", {U, U}, U, [](EvalContext&, const Args& a) {
    if (a[1].u == 0) return Value::Error("modulus by zero");
    return Value::Uint(a[0].u % a[1].u);
  });
  b.Global("-_", {I}, I, [](EvalContext&, const Args& a) {
    if (a[0].i == std::numeric_limits<int64_t>::min()) return IntOverflow();
    return Value::Int(-a[0].i);
  });
  b.Global("-_", {D}, D, [](EvalContext&, const Args& a) { return Value::Double(-a[0].d); });
  b.Global("-_", {Dur}, Dur, [](EvalContext&, const Args& a) {
    if (a[0].i == std::numeric_limits<int64_t>::min()) return IntOverflow();
    return Value::Duration(-a[0].i);
  });
  b.Global("!_", {B}, B, [](EvalContext&, const Args& a) { return Value::Bool(!a[0].b); });

  // Logical operators and the conditional are evaluated by the interpreter; their signatures
  // serve the checker.
  b.Global("_&&_", {B, B}, B, nullptr);
  b.Global("_||_", {B, B}, B, nullptr);
  b.Global("_?_:_", {B, A, A}, A, nullptr);

  // Equality (heterogeneous at run time).
  b.Global("_==_", {A, A}, B, [](EvalContext&, const Args& a) { return Equal(a[0], a[1]); });
  b.Global("_!=_", {A, A}, B, [](EvalContext&, const Args& a) {
    Value e = Equal(a[0], a[1]);
    return e.IsError() ? e : Value::Bool(!e.b);
  });

  // Ordering: same types, and the numeric types across each other (cross-type numeric
  // comparisons are enabled in Kubernetes' environment since 1.28).
  struct Rel {
    const char* fn;
    bool (*test)(int);
  };
  static const Rel kRels[] = {
      {"_<_", [](int c) { return c == -1; }},
      {"_<=_", [](int c) { return c == -1 || c == 0; }},
      {"_>_", [](int c) { return c == 1; }},
      {"_>=_", [](int c) { return c == 1 || c == 0; }},
  };
  std::vector<std::pair<TypePtr, TypePtr>> pairs = {{I, I}, {U, U},   {D, D},     {S, S}, {Y, Y},
                                                    {B, B}, {Ts, Ts}, {Dur, Dur}, {I, U}, {I, D},
                                                    {U, I}, {U, D},   {D, I},     {D, U}};
  for (const auto& rel : kRels) {
    for (const auto& [x, y] : pairs) {
      auto test = rel.test;
      b.Global(rel.fn, {x, y}, B, [test](EvalContext& ctx, const Args& a) {
        if (a[0].kind == Kind::kString || a[0].kind == Kind::kBytes) {
          ctx.AddCost(StrCost(std::min(a[0].str().size(), a[1].str().size())));
        }
        int c = Compare(a[0], a[1]);
        if (c == 2) return Value::Bool(false);  // NaN
        return Value::Bool(test(c));
      });
    }
  }

  // in
  b.Global("@in", {A, ListOf(A)}, B, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(1 + static_cast<int64_t>(a[1].items().size()));
    for (const auto& x : a[1].items()) {
      if (Equal(a[0], x).IsTrue()) return Value::Bool(true);
    }
    return Value::Bool(false);
  });
  b.Global("@in", {K, MapOf(K, V)}, B, [](EvalContext&, const Args& a) {
    if (a[0].kind == Kind::kString) return Value::Bool(a[1].map->FindString(a[0].str()) != nullptr);
    for (const auto& [k, v] : a[1].map->entries) {
      if (Equal(a[0], k).IsTrue()) return Value::Bool(true);
    }
    return Value::Bool(false);
  });

  // Indexing is evaluated by the interpreter (maps, objects, lists, optional indexing).
  b.Global("_[_]", {ListOf(A), I}, A, nullptr);
  b.Global("_[_]", {MapOf(K, V), K}, V, nullptr);
  b.Global("_[?_]", {ListOf(A), I}, OptionalOf(A), nullptr);
  b.Global("_[?_]", {MapOf(K, V), K}, OptionalOf(V), nullptr);
  b.Global("_[?_]", {OptionalOf(ListOf(A)), I}, OptionalOf(A), nullptr);
  b.Global("_[?_]", {OptionalOf(MapOf(K, V)), K}, OptionalOf(V), nullptr);

  // size
  auto size_string = [](EvalContext&, const Args& a) { return Value::Int(CpCount(a[0].str())); };
  auto size_bytes = [](EvalContext&, const Args& a) {
    return Value::Int(static_cast<int64_t>(a[0].str().size()));
  };
  auto size_list = [](EvalContext&, const Args& a) {
    return Value::Int(static_cast<int64_t>(a[0].items().size()));
  };
  auto size_map = [](EvalContext&, const Args& a) {
    return Value::Int(static_cast<int64_t>(a[0].map->entries.size()));
  };
  for (bool member : {false, true}) {
    auto add = [&](std::vector<TypePtr> p, Impl impl) {
      if (member) {
        b.Member("size", std::move(p), I, std::move(impl));
      } else {
        b.Global("size", std::move(p), I, std::move(impl));
      }
    };
    add({S}, size_string);
    add({Y}, size_bytes);
    add({ListOf(A)}, size_list);
    add({MapOf(K, V)}, size_map);
  }
}

void RegisterConversions(Builder& b) {
  auto A = Param("A");
  auto I = IntType(), U = UintType(), D = DoubleType(), S = StringType(), B = BoolType(),
       Y = BytesType();
  auto Dur = DurationType(), Ts = TimestampType();

  b.Global("int", {I}, I, [](EvalContext&, const Args& a) { return a[0]; });
  b.Global("int", {U}, I, [](EvalContext&, const Args& a) {
    if (a[0].u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return IntOverflow();
    return Value::Int(static_cast<int64_t>(a[0].u));
  });
  b.Global("int", {D}, I, [](EvalContext&, const Args& a) {
    double d = a[0].d;
    if (std::isnan(d) || d <= -9223372036854775808.0 || d >= 9223372036854775807.0)
      return IntOverflow();
    return Value::Int(static_cast<int64_t>(d));
  });
  b.Global("int", {S}, I, [](EvalContext&, const Args& a) {
    const std::string& s = a[0].str();
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || end != s.c_str() + s.size() ||
        std::isspace(static_cast<unsigned char>(s[0])) ||
        (s[0] == '+' && s.size() > 1 && s[1] == '-')) {
      return Value::Error("type conversion error from 'string' to 'int'");
    }
    if (errno == ERANGE) return Value::Error("type conversion error from 'string' to 'int'");
    return Value::Int(v);
  });
  b.Global("int", {Ts}, I, [](EvalContext&, const Args& a) { return Value::Int(a[0].i); });
  b.Global("int", {Dur}, I, [](EvalContext&, const Args& a) { return Value::Int(a[0].i); });
  b.Global("uint", {U}, U, [](EvalContext&, const Args& a) { return a[0]; });
  b.Global("uint", {I}, U, [](EvalContext&, const Args& a) {
    if (a[0].i < 0) return UintOverflow();
    return Value::Uint(static_cast<uint64_t>(a[0].i));
  });
  b.Global("uint", {D}, U, [](EvalContext&, const Args& a) {
    double d = a[0].d;
    if (std::isnan(d) || d < 0 || d >= 18446744073709551616.0) return UintOverflow();
    return Value::Uint(static_cast<uint64_t>(d));
  });
  b.Global("uint", {S}, U, [](EvalContext&, const Args& a) {
    const std::string& s = a[0].str();
    errno = 0;
    char* end = nullptr;
    unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (s.empty() || end != s.c_str() + s.size() ||
        !std::isdigit(static_cast<unsigned char>(s[0]))) {
      return Value::Error("type conversion error from 'string' to 'uint'");
    }
    if (errno == ERANGE) return Value::Error("type conversion error from 'string' to 'uint'");
    return Value::Uint(v);
  });
  b.Global("double", {D}, D, [](EvalContext&, const Args& a) { return a[0]; });
  b.Global("double", {I}, D,
           [](EvalContext&, const Args& a) { return Value::Double(static_cast<double>(a[0].i)); });
  b.Global("double", {U}, D,
           [](EvalContext&, const Args& a) { return Value::Double(static_cast<double>(a[0].u)); });
  b.Global("double", {S}, D, [](EvalContext&, const Args& a) {
    const std::string& s = a[0].str();
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() ||
        std::isspace(static_cast<unsigned char>(s[0]))) {
      return Value::Error("type conversion error from 'string' to 'double'");
    }
    return Value::Double(v);
  });
  for (const auto& t : {S, I, U, D, B, Y, Ts, Dur}) {
    b.Global("string", {t}, S, [](EvalContext& ctx, const Args& a) {
      if (a[0].kind == Kind::kBytes) ctx.AddCost(StrCost(a[0].str().size()));
      return StringOf(a[0]);
    });
  }
  b.Global("bytes", {Y}, Y, [](EvalContext&, const Args& a) { return a[0]; });
  b.Global("bytes", {S}, Y, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[0].str().size()));
    return Value::Bytes(a[0].str());
  });
  b.Global("bool", {B}, B, [](EvalContext&, const Args& a) { return a[0]; });
  b.Global("bool", {S}, B, [](EvalContext&, const Args& a) {
    const std::string& s = a[0].str();
    if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True")
      return Value::Bool(true);
    if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False")
      return Value::Bool(false);
    return Value::Error("type conversion error from 'string' to 'bool'");
  });
  b.Global("duration", {Dur}, Dur, [](EvalContext&, const Args& a) { return a[0]; });
  // cel-go's string conversions report only the types.
  b.Global("duration", {S}, Dur, [](EvalContext&, const Args& a) {
    Value d = ParseDuration(a[0].str());
    return d.IsError()
               ? Value::Error("type conversion error from 'string' to 'google.protobuf.Duration'")
               : d;
  });
  b.Global("timestamp", {Ts}, Ts, [](EvalContext&, const Args& a) { return a[0]; });
  b.Global("timestamp", {S}, Ts, [](EvalContext&, const Args& a) {
    Value t = ParseTimestamp(a[0].str());
    return t.IsError()
               ? Value::Error("type conversion error from 'string' to 'google.protobuf.Timestamp'")
               : t;
  });
  b.Global("timestamp", {I}, Ts,
           [](EvalContext&, const Args& a) { return MakeTimestamp(a[0].i, 0); });
  b.Global("type", {A}, TypeOf(A),
           [](EvalContext&, const Args& a) { return Value::TypeValue(TypeName(a[0])); });
  b.Global("dyn", {A}, DynType(), [](EvalContext&, const Args& a) { return a[0]; });
}

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

void RegisterStrings(Builder& b) {
  auto I = IntType(), S = StringType(), B = BoolType();
  auto LS = ListOf(S);

  b.Member("contains", {S, S}, B, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[0].str().size()));
    return Value::Bool(a[0].str().find(a[1].str()) != std::string::npos);
  });
  b.Member("startsWith", {S, S}, B, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[1].str().size()));
    return Value::Bool(a[0].str().starts_with(a[1].str()));
  });
  b.Member("endsWith", {S, S}, B, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[1].str().size()));
    return Value::Bool(a[0].str().ends_with(a[1].str()));
  });
  auto matches = [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(RegexCost(a[0].str().size(), a[1].str().size()));
    auto re = Regex::CompileCached(a[1].str());
    if (!re) return Value::Error(re.error());
    return Value::Bool((*re)->MatchString(a[0].str()));
  };
  b.Member("matches", {S, S}, B, matches);
  b.Global("matches", {S, S}, B, matches);
  b.Member("find", {S, S}, S, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(RegexCost(a[0].str().size(), a[1].str().size()));
    auto re = Regex::CompileCached(a[1].str());
    if (!re) return Value::Error(re.error());
    auto m = (*re)->Find(a[0].str());
    return Value::String(m ? a[0].str().substr(m->start, m->end - m->start) : "");
  });
  auto find_all = [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(RegexCost(a[0].str().size(), a[1].str().size()));
    int64_t limit = a.size() > 2 ? a[2].i : -1;
    auto re = Regex::CompileCached(a[1].str());
    if (!re) return Value::Error(re.error());
    std::vector<Value> out;
    const std::string& s = a[0].str();
    size_t from = 0;
    size_t prev_end = std::string::npos;
    while (limit < 0 || static_cast<int64_t>(out.size()) < limit) {
      if (from > s.size()) break;
      auto m = (*re)->Find(s, from);
      if (!m) break;
      if (m->start == m->end && m->start == prev_end) {
        // Go skips an empty match right after the previous match.
        from = m->start +
               std::max<size_t>(
                   1, CpLen(static_cast<unsigned char>(m->start < s.size() ? s[m->start] : 0)));
        continue;
      }
      out.push_back(Value::String(s.substr(m->start, m->end - m->start)));
      prev_end = m->end;
      from = m->end > m->start
                 ? m->end
                 : m->end + std::max<size_t>(1, m->end < s.size()
                                                    ? CpLen(static_cast<unsigned char>(s[m->end]))
                                                    : 1);
      ctx.AddCost(1);
    }
    return Value::List(std::move(out));
  };
  b.Member("findAll", {S, S}, LS, find_all);
  b.Member("findAll", {S, S, I}, LS, find_all);

  b.Member("charAt", {S, I}, S, [](EvalContext& ctx, const Args& a) {
    auto offs = CpOffsets(a[0].str());
    ctx.AddCost(StrCost(a[0].str().size()));
    int64_t n = static_cast<int64_t>(offs.size()) - 1;
    if (a[1].i < 0 || a[1].i > n)
      return Value::Error("index out of range: " + std::to_string(a[1].i));
    if (a[1].i == n) return Value::String("");
    auto k = static_cast<size_t>(a[1].i);
    return Value::String(a[0].str().substr(offs[k], offs[k + 1] - offs[k]));
  });
  auto index_of = [](EvalContext& ctx, const Args& a) {
    const std::string& s = a[0].str();
    const std::string& sub = a[1].str();
    ctx.AddCost(StrCost(s.size()));
    auto offs = CpOffsets(s);
    int64_t n = static_cast<int64_t>(offs.size()) - 1;
    int64_t start = a.size() > 2 ? a[2].i : 0;
    if (start < 0 || start > n) return Value::Error("index out of range: " + std::to_string(start));
    size_t at = s.find(sub, offs[static_cast<size_t>(start)]);
    if (at == std::string::npos) return Value::Int(-1);
    return Value::Int(CpCount(std::string_view(s).substr(0, at)));
  };
  b.Member("indexOf", {S, S}, I, index_of);
  b.Member("indexOf", {S, S, I}, I, index_of);
  auto last_index_of = [](EvalContext& ctx, const Args& a) {
    const std::string& s = a[0].str();
    const std::string& sub = a[1].str();
    ctx.AddCost(StrCost(s.size()));
    auto offs = CpOffsets(s);
    int64_t n = static_cast<int64_t>(offs.size()) - 1;
    int64_t last = a.size() > 2 ? a[2].i : n;
    if (last < 0 || last > n) return Value::Error("index out of range: " + std::to_string(last));
    if (sub.empty()) return Value::Int(last);
    size_t at = s.rfind(sub, offs[static_cast<size_t>(last)]);
    if (at == std::string::npos) return Value::Int(-1);
    return Value::Int(CpCount(std::string_view(s).substr(0, at)));
  };
  b.Member("lastIndexOf", {S, S}, I, last_index_of);
  b.Member("lastIndexOf", {S, S, I}, I, last_index_of);
  b.Member("lowerAscii", {S}, S, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[0].str().size()));
    std::string s = a[0].str();
    for (auto& c : s) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    }
    return Value::String(std::move(s));
  });
  b.Member("upperAscii", {S}, S, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[0].str().size()));
    std::string s = a[0].str();
    for (auto& c : s) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    }
    return Value::String(std::move(s));
  });
  auto replace = [](EvalContext& ctx, const Args& a) {
    int64_t n = a.size() > 3 ? a[3].i : -1;
    const std::string& s = a[0].str();
    const std::string& from = a[1].str();
    const std::string& to = a[2].str();
    // Charge for the result before building it, so that no replacement can grow a string
    // past what the cost limit allows.
    size_t count = 0;
    if (from.empty()) {
      count = static_cast<size_t>(CpCount(s)) + 1;
    } else if (to.size() > from.size()) {
      for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + from.size()))
        ++count;
    }
    if (n >= 0) count = std::min(count, static_cast<size_t>(n));
    ctx.AddCost(StrCost(s.size() + count * to.size()));
    return Value::String(Replace(s, from, to, n));
  };
  b.Member("replace", {S, S, S}, S, replace);
  b.Member("replace", {S, S, S, I}, S, replace);
  auto split = [](EvalContext& ctx, const Args& a) {
    int64_t n = a.size() > 2 ? a[2].i : -1;
    ctx.AddCost(StrCost(a[0].str().size()));
    auto parts = Split(a[0].str(), a[1].str(), n);
    ctx.AddCost(static_cast<int64_t>(parts.size()));
    return Value::List(std::move(parts));
  };
  b.Member("split", {S, S}, LS, split);
  b.Member("split", {S, S, I}, LS, split);
  auto substring = [](EvalContext& ctx, const Args& a) {
    const std::string& s = a[0].str();
    ctx.AddCost(StrCost(s.size()));
    auto offs = CpOffsets(s);
    int64_t n = static_cast<int64_t>(offs.size()) - 1;
    int64_t start = a[1].i;
    int64_t end = a.size() > 2 ? a[2].i : n;
    if (start < 0 || start > n) return Value::Error("index out of range: " + std::to_string(start));
    if (end < 0 || end > n) return Value::Error("index out of range: " + std::to_string(end));
    if (start > end) {
      return Value::Error("invalid substring range. start: " + std::to_string(start) +
                          ", end: " + std::to_string(end));
    }
    return Value::String(
        s.substr(offs[static_cast<size_t>(start)],
                 offs[static_cast<size_t>(end)] - offs[static_cast<size_t>(start)]));
  };
  b.Member("substring", {S, I}, S, substring);
  b.Member("substring", {S, I, I}, S, substring);
  b.Member("trim", {S}, S, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[0].str().size()));
    return Value::String(TrimSpaceUnicode(a[0].str()));
  });
  auto join = [](EvalContext& ctx, const Args& a) {
    std::string sep = a.size() > 1 ? a[1].str() : "";
    std::string out;
    bool first = true;
    for (const auto& v : a[0].items()) {
      if (v.kind != Kind::kString) return Value::NoSuchOverload();
      if (!first) out += sep;
      first = false;
      out += v.str();
      ctx.AddCost(1 + StrCost(v.str().size() + sep.size()));
    }
    return Value::String(std::move(out));
  };
  b.Member("join", {LS}, S, join);
  b.Member("join", {LS, S}, S, join);
  b.Member("format", {S, ListOf(DynType())}, S,
           [](EvalContext& ctx, const Args& a) { return Format(ctx, a[0].str(), a[1]); });
  b.Global("strings.quote", {S}, S, [](EvalContext& ctx, const Args& a) {
    ctx.AddCost(StrCost(a[0].str().size()));
    return Value::String(Quote(a[0].str()));
  });
}

void RegisterLists(Builder& b) {
  auto A = Param("A");
  auto I = IntType(), B = BoolType();
  std::vector<TypeKind> comparable = {TypeKind::kInt,    TypeKind::kUint,     TypeKind::kDouble,
                                      TypeKind::kBool,   TypeKind::kDuration, TypeKind::kTimestamp,
                                      TypeKind::kString, TypeKind::kBytes};
  std::vector<TypeKind> summable = {TypeKind::kInt, TypeKind::kUint, TypeKind::kDouble,
                                    TypeKind::kDuration};
  b.Member(
      "isSorted", {ListOf(A)}, B,
      [](EvalContext& ctx, const Args& a) {
        const auto& items = a[0].items();
        ctx.AddCost(1 + static_cast<int64_t>(items.size()));
        for (size_t k = 1; k < items.size(); ++k) {
          int c = Compare(items[k - 1], items[k]);
          if (c == 2 && !SameKindComparable(items[k - 1], items[k])) return Value::NoSuchOverload();
          if (c == 1) return Value::Bool(false);
        }
        return Value::Bool(true);
      },
      comparable);
  b.Member(
      "sum", {ListOf(A)}, A,
      [](EvalContext& ctx, const Args& a) {
        const auto& items = a[0].items();
        ctx.AddCost(1 + static_cast<int64_t>(items.size()));
        if (items.empty()) return Value::Int(0);
        Value acc = items[0];
        for (size_t k = 1; k < items.size(); ++k) {
          const Value& x = items[k];
          if (x.kind != acc.kind) return Value::NoSuchOverload();
          switch (acc.kind) {
            case Kind::kInt: {
              int64_t r;
              if (__builtin_add_overflow(acc.i, x.i, &r)) return IntOverflow();
              acc = Value::Int(r);
              break;
            }
            case Kind::kUint: {
              uint64_t r;
              if (__builtin_add_overflow(acc.u, x.u, &r)) return UintOverflow();
              acc = Value::Uint(r);
              break;
            }
            case Kind::kDouble:
              acc = Value::Double(acc.d + x.d);
              break;
            case Kind::kDuration: {
              int64_t r;
              if (__builtin_add_overflow(acc.i, x.i, &r)) return IntOverflow();
              acc = Value::Duration(r);
              break;
            }
            default:
              return Value::NoSuchOverload();
          }
        }
        if (acc.kind != Kind::kInt && acc.kind != Kind::kUint && acc.kind != Kind::kDouble &&
            acc.kind != Kind::kDuration) {
          return Value::NoSuchOverload();
        }
        return acc;
      },
      summable);
  b.Member(
      "min", {ListOf(A)}, A,
      [](EvalContext& ctx, const Args& a) { return ListMinMax(ctx, a[0], true); }, comparable);
  b.Member(
      "max", {ListOf(A)}, A,
      [](EvalContext& ctx, const Args& a) { return ListMinMax(ctx, a[0], false); }, comparable);
  b.Member("indexOf", {ListOf(A), A}, I, [](EvalContext& ctx, const Args& a) {
    const auto& items = a[0].items();
    for (size_t k = 0; k < items.size(); ++k) {
      ctx.AddCost(1);
      if (Equal(items[k], a[1]).IsTrue()) return Value::Int(static_cast<int64_t>(k));
    }
    return Value::Int(-1);
  });
  b.Member("lastIndexOf", {ListOf(A), A}, I, [](EvalContext& ctx, const Args& a) {
    const auto& items = a[0].items();
    for (size_t k = items.size(); k-- > 0;) {
      ctx.AddCost(1);
      if (Equal(items[k], a[1]).IsTrue()) return Value::Int(static_cast<int64_t>(k));
    }
    return Value::Int(-1);
  });
  // ext.Sets
  auto contains_all = [](EvalContext& ctx, const Value& l, const Value& sub) {
    for (const auto& y : sub.items()) {
      bool found = false;
      for (const auto& x : l.items()) {
        ctx.AddCost(1);
        if (Equal(x, y).IsTrue()) {
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
    return true;
  };
  b.Global("sets.contains", {ListOf(A), ListOf(A)}, B,
           [contains_all](EvalContext& ctx, const Args& a) {
             return Value::Bool(contains_all(ctx, a[0], a[1]));
           });
  b.Global("sets.equivalent", {ListOf(A), ListOf(A)}, B,
           [contains_all](EvalContext& ctx, const Args& a) {
             return Value::Bool(contains_all(ctx, a[0], a[1]) && contains_all(ctx, a[1], a[0]));
           });
  b.Global("sets.intersects", {ListOf(A), ListOf(A)}, B, [](EvalContext& ctx, const Args& a) {
    for (const auto& y : a[1].items()) {
      for (const auto& x : a[0].items()) {
        ctx.AddCost(1);
        if (Equal(x, y).IsTrue()) return Value::Bool(true);
      }
    }
    return Value::Bool(false);
  });
}

void RegisterOptional(Builder& b) {
  auto A = Param("A");
  b.Global("optional.of", {A}, OptionalOf(A),
           [](EvalContext&, const Args& a) { return Value::Optional(&a[0]); });
  b.Global("optional.none", {}, OptionalOf(DynType()),
           [](EvalContext&, const Args&) { return Value::Optional(nullptr); });
  b.Global("optional.ofNonZeroValue", {A}, OptionalOf(A), [](EvalContext&, const Args& a) {
    const Value& v = a[0];
    bool zero = false;
    switch (v.kind) {
      case Kind::kNull:
        zero = true;
        break;
      case Kind::kBool:
        zero = !v.b;
        break;
      case Kind::kInt:
      case Kind::kDuration:
        zero = v.i == 0;
        break;
      case Kind::kUint:
        zero = v.u == 0;
        break;
      case Kind::kDouble:
        zero = v.d == 0;
        break;
      case Kind::kString:
      case Kind::kBytes:
        zero = v.str().empty();
        break;
      case Kind::kList:
        zero = v.items().empty();
        break;
      case Kind::kMap:
      case Kind::kObject:
        zero = v.map->entries.empty();
        break;
      case Kind::kTimestamp:
        zero = v.i == 0 && v.nanos == 0;
        break;
      default:
        break;
    }
    return Value::Optional(zero ? nullptr : &v);
  });
  b.Member("hasValue", {OptionalOf(A)}, BoolType(),
           [](EvalContext&, const Args& a) { return Value::Bool(!a[0].items().empty()); });
  b.Member("value", {OptionalOf(A)}, A, [](EvalContext&, const Args& a) {
    if (a[0].items().empty()) return Value::Error("optional.none() dereference");
    return a[0].items()[0];
  });
  b.Member("orValue", {OptionalOf(A), A}, A, [](EvalContext&, const Args& a) {
    return a[0].items().empty() ? a[1] : a[0].items()[0];
  });
  b.Member("or", {OptionalOf(A), OptionalOf(A)}, OptionalOf(A),
           [](EvalContext&, const Args& a) { return a[0].items().empty() ? a[1] : a[0]; });
}

void RegisterQuantity(Builder& b) {
  auto Q = QuantityType();
  auto I = IntType(), S = StringType(), B = BoolType(), D = DoubleType();
  b.Global("quantity", {S}, Q,
           [](EvalContext&, const Args& a) { return MakeQuantity(a[0].str()); });
  b.Global("isQuantity", {S}, B, [](EvalContext&, const Args& a) {
    return Value::Bool(!apimachinery::schema::QuantityParseError(a[0].str()).has_value());
  });
  b.Member("sign", {Q}, I, [](EvalContext&, const Args& a) {
    return Value::Int(a[0].q > 0 ? 1 : (a[0].q < 0 ? -1 : 0));
  });
  auto as_int = [](const Value& q) -> std::optional<int64_t> {
    long double v = q.q;
    if (v != std::floor(v) || v < -9223372036854775808.0L || v > 9223372036854775807.0L)
      return std::nullopt;
    return static_cast<int64_t>(v);
  };
  b.Member("isInteger", {Q}, B,
           [as_int](EvalContext&, const Args& a) { return Value::Bool(as_int(a[0]).has_value()); });
  b.Member("asInteger", {Q}, I, [as_int](EvalContext&, const Args& a) {
    auto v = as_int(a[0]);
    if (!v) return Value::Error("cannot convert value to integer");
    return Value::Int(*v);
  });
  b.Member("asApproximateFloat", {Q}, D,
           [](EvalContext&, const Args& a) { return Value::Double(static_cast<double>(a[0].q)); });
  b.Member("add", {Q, Q}, Q,
           [](EvalContext&, const Args& a) { return QuantityFromAmount(a[0].q + a[1].q); });
  b.Member("add", {Q, I}, Q, [](EvalContext&, const Args& a) {
    return QuantityFromAmount(a[0].q + static_cast<long double>(a[1].i));
  });
  b.Member("sub", {Q, Q}, Q,
           [](EvalContext&, const Args& a) { return QuantityFromAmount(a[0].q - a[1].q); });
  b.Member("sub", {Q, I}, Q, [](EvalContext&, const Args& a) {
    return QuantityFromAmount(a[0].q - static_cast<long double>(a[1].i));
  });
  b.Member("isLessThan", {Q, Q}, B,
           [](EvalContext&, const Args& a) { return Value::Bool(a[0].q < a[1].q); });
  b.Member("isGreaterThan", {Q, Q}, B,
           [](EvalContext&, const Args& a) { return Value::Bool(a[0].q > a[1].q); });
  b.Member("compareTo", {Q, Q}, I, [](EvalContext&, const Args& a) {
    return Value::Int(a[0].q < a[1].q ? -1 : (a[0].q > a[1].q ? 1 : 0));
  });
}

void RegisterUrls(Builder& b) {
  auto U = UrlType();
  auto S = StringType(), B = BoolType();
  b.Global("url", {S}, U, [](EvalContext&, const Args& a) {
    auto parsed = apimachinery::gourl::Parse(a[0].str(), true);
    if (!parsed) {
      return Value::Error("URL parse error during conversion from string: " + parsed.error());
    }
    return Value::Url(a[0].str());
  });
  b.Global("isURL", {S}, B, [](EvalContext&, const Args& a) {
    return Value::Bool(apimachinery::gourl::Parse(a[0].str(), true).has_value());
  });
  auto parsed = [](const Value& v) {
    auto u = apimachinery::gourl::Parse(v.str());
    return u ? *u : apimachinery::gourl::URL{};
  };
  b.Member("getScheme", {U}, S,
           [parsed](EvalContext&, const Args& a) { return Value::String(parsed(a[0]).scheme); });
  b.Member("getHost", {U}, S,
           [parsed](EvalContext&, const Args& a) { return Value::String(parsed(a[0]).host); });
  b.Member("getHostname", {U}, S, [parsed](EvalContext&, const Args& a) {
    std::string h = parsed(a[0]).host;
    size_t at = h.rfind('@');
    if (at != std::string::npos) h = h.substr(at + 1);
    if (!h.empty() && h[0] == '[') {
      size_t close = h.find(']');
      return Value::String(h.substr(1, close == std::string::npos ? std::string::npos : close - 1));
    }
    size_t colon = h.rfind(':');
    return Value::String(colon == std::string::npos ? h : h.substr(0, colon));
  });
  b.Member("getPort", {U}, S, [parsed](EvalContext&, const Args& a) {
    std::string h = parsed(a[0]).host;
    size_t close = h.rfind(']');
    size_t colon = h.rfind(':');
    if (colon == std::string::npos || (close != std::string::npos && colon < close))
      return Value::String("");
    return Value::String(h.substr(colon + 1));
  });
  b.Member("getEscapedPath", {U}, S,
           [parsed](EvalContext&, const Args& a) { return Value::String(parsed(a[0]).raw_path); });
  b.Member("getQuery", {U}, MapOf(S, ListOf(S)), [parsed](EvalContext&, const Args& a) {
    std::string q = parsed(a[0]).raw_query;
    std::vector<std::pair<std::string, std::vector<Value>>> entries;
    size_t pos = 0;
    while (pos <= q.size() && !q.empty()) {
      size_t amp = q.find('&', pos);
      std::string part = q.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
      pos = amp == std::string::npos ? q.size() + 1 : amp + 1;
      if (part.empty() || part.find(';') != std::string::npos) continue;
      size_t eq = part.find('=');
      bool ok1, ok2;
      std::string key = Unescape(part.substr(0, eq), true, &ok1);
      std::string val = eq == std::string::npos ? "" : Unescape(part.substr(eq + 1), true, &ok2);
      if (!ok1 || (eq != std::string::npos && !ok2)) continue;
      auto it = std::find_if(entries.begin(), entries.end(),
                             [&](const auto& e) { return e.first == key; });
      if (it == entries.end()) {
        entries.push_back({key, {}});
        it = entries.end() - 1;
      }
      it->second.push_back(Value::String(val));
    }
    std::vector<std::pair<Value, Value>> m;
    for (auto& [k, v] : entries) m.emplace_back(Value::String(k), Value::List(std::move(v)));
    return Value::Map(std::move(m));
  });
}

// --- IP addresses and CIDRs (Kubernetes' ip and cidr libraries over Go's net/netip) ------------

struct IpAddr {
  bool v6 = false;
  std::array<uint8_t, 16> b{};  // v4 uses the first 4 bytes
  size_t Len() const { return v6 ? 16 : 4; }
};

// netip.ParseAddr for addresses without zones; the error is netip's.
std::optional<IpAddr> ParseAddr(std::string_view s, std::string* err) {
  auto fail = [&](const std::string& why) {
    *err = "ParseAddr(" + Quote(s) + "): " + why;
    return std::nullopt;
  };
  if (s.empty()) return fail("unable to parse IP");
  IpAddr a;
  if (s.find(':') == std::string_view::npos) {
    size_t field = 0, pos = 0;
    while (true) {
      size_t start = pos;
      int v = 0;
      while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
        v = v * 10 + (s[pos] - '0');
        if (v > 255) return fail("IPv4 field has value >255");
        ++pos;
      }
      if (pos == start) return fail("unable to parse IP");
      if (pos - start > 1 && s[start] == '0') return fail("IPv4 field has octet with leading zero");
      if (field >= 4) return fail("IPv4 address too long");
      a.b[field++] = static_cast<uint8_t>(v);
      if (pos == s.size()) break;
      if (s[pos] != '.') return fail("unexpected character");
      ++pos;
    }
    if (field != 4) return fail("IPv4 address too short");
    return a;
  }
  std::string text(s);
  in6_addr addr{};
  if (inet_pton(AF_INET6, text.c_str(), &addr) != 1) return fail("unable to parse IP");
  a.v6 = true;
  std::memcpy(a.b.data(), &addr, 16);
  return a;
}

bool Is4In6(const IpAddr& a) {
  if (!a.v6) return false;
  for (int k = 0; k < 10; ++k) {
    if (a.b[k] != 0) return false;
  }
  return a.b[10] == 0xFF && a.b[11] == 0xFF;
}

// netip.Addr.String(): dotted quad, or RFC 5952 IPv6 (longest run of two or more zero groups
// compressed, the first of equal runs).
std::string AddrString(const IpAddr& a) {
  if (!a.v6) {
    return std::to_string(a.b[0]) + "." + std::to_string(a.b[1]) + "." + std::to_string(a.b[2]) +
           "." + std::to_string(a.b[3]);
  }
  uint16_t g[8];
  for (int k = 0; k < 8; ++k) g[k] = static_cast<uint16_t>((a.b[2 * k] << 8) | a.b[2 * k + 1]);
  int best = -1, best_len = 0;
  for (int k = 0; k < 8;) {
    if (g[k] != 0) {
      ++k;
      continue;
    }
    int j = k;
    while (j < 8 && g[j] == 0) ++j;
    if (j - k > best_len && j - k >= 2) {
      best = k;
      best_len = j - k;
    }
    k = j;
  }
  std::string out;
  char buf[8];
  for (int k = 0; k < 8; ++k) {
    if (k == best) {
      out += "::";
      k += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ":";
    std::snprintf(buf, sizeof(buf), "%x", g[k]);
    out += buf;
  }
  return out;
}

// Kubernetes' ip(): no zones, no IPv4-mapped IPv6.
std::optional<IpAddr> ParseK8sIp(std::string_view raw, std::string* err) {
  if (raw.find('%') != std::string_view::npos) {
    std::string inner;
    if (ParseAddr(raw.substr(0, raw.find('%')), &inner)) {
      *err = "IP address " + Quote(raw) + " with zone value is not allowed";
      return std::nullopt;
    }
  }
  std::string perr;
  auto a = ParseAddr(raw, &perr);
  if (!a) {
    *err = "IP Address " + Quote(raw) + " parse error during conversion from string: " + perr;
    return std::nullopt;
  }
  if (Is4In6(*a)) {
    *err = "IPv4-mapped IPv6 address " + Quote(raw) + " is not allowed";
    return std::nullopt;
  }
  return a;
}

struct Prefix {
  IpAddr addr;
  int bits = 0;
};

std::optional<Prefix> ParseK8sCidr(std::string_view raw, std::string* err) {
  auto fail = [&](const std::string& why) {
    *err = "network address " + Quote(raw) +
           " parse error during conversion from string: netip.ParsePrefix(" + Quote(raw) +
           "): " + why;
    return std::nullopt;
  };
  size_t slash = raw.rfind('/');
  if (slash == std::string_view::npos) return fail("no '/'");
  std::string_view addr_text = raw.substr(0, slash);
  if (addr_text.find('%') != std::string_view::npos)
    return fail("IPv6 zones cannot be present in a prefix");
  std::string perr;
  auto a = ParseAddr(addr_text, &perr);
  if (!a) return fail(perr);
  std::string_view bits_text = raw.substr(slash + 1);
  if (bits_text.empty() || bits_text.size() > 3 || (bits_text.size() > 1 && bits_text[0] == '0')) {
    return fail("bad bits after slash: " + Quote(bits_text));
  }
  int bits = 0;
  for (char c : bits_text) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return fail("bad bits after slash: " + Quote(bits_text));
    bits = bits * 10 + (c - '0');
  }
  if (bits > static_cast<int>(a->Len() * 8)) return fail("prefix length out of range");
  if (Is4In6(*a)) {
    *err = "IPv4-mapped IPv6 address " + Quote(raw) + " is not allowed";
    return std::nullopt;
  }
  return Prefix{*a, bits};
}

IpAddr Masked(IpAddr a, int bits) {
  for (size_t k = 0; k < a.Len(); ++k) {
    int keep = std::clamp(bits - static_cast<int>(k) * 8, 0, 8);
    a.b[k] = static_cast<uint8_t>(a.b[k] & (keep == 0 ? 0 : (0xFF << (8 - keep)) & 0xFF));
  }
  return a;
}

bool PrefixContains(const Prefix& p, const IpAddr& a) {
  if (p.addr.v6 != a.v6) return false;
  IpAddr x = Masked(p.addr, p.bits), y = Masked(a, p.bits);
  return x.b == y.b;
}

Value CidrValue(const Prefix& p) {
  return Value::CIDR(AddrString(p.addr) + "/" + std::to_string(p.bits));
}

// Values hold canonical text, which always parses.
IpAddr IpOf(const Value& v) {
  std::string err;
  return *ParseAddr(v.str(), &err);
}
Prefix PrefixOf(const Value& v) {
  std::string err;
  return *ParseK8sCidr(v.str(), &err);
}

void RegisterNet(Builder& b) {
  auto S = StringType(), B = BoolType(), I = IntType();
  auto IP = IPType(), CIDR = CIDRType();
  b.Global("isIP", {S}, B, [](EvalContext&, const Args& a) {
    std::string err;
    return Value::Bool(ParseK8sIp(a[0].str(), &err).has_value());
  });
  b.Global("ip", {S}, IP, [](EvalContext&, const Args& a) {
    std::string err;
    auto ip = ParseK8sIp(a[0].str(), &err);
    if (!ip) return Value::Error(err);
    return Value::IP(AddrString(*ip));
  });
  b.Global("ip.isCanonical", {S}, B, [](EvalContext&, const Args& a) {
    std::string err;
    auto ip = ParseK8sIp(a[0].str(), &err);
    if (!ip) return Value::Error(err);
    return Value::Bool(AddrString(*ip) == a[0].str());
  });
  b.Member("family", {IP}, I,
           [](EvalContext&, const Args& a) { return Value::Int(IpOf(a[0]).v6 ? 6 : 4); });
  b.Member("isUnspecified", {IP}, B, [](EvalContext&, const Args& a) {
    IpAddr ip = IpOf(a[0]);
    return Value::Bool(std::all_of(ip.b.begin(), ip.b.begin() + static_cast<long>(ip.Len()),
                                   [](uint8_t x) { return x == 0; }));
  });
  auto loopback = [](const IpAddr& ip) {
    if (!ip.v6) return ip.b[0] == 127;
    for (int k = 0; k < 15; ++k) {
      if (ip.b[k] != 0) return false;
    }
    return ip.b[15] == 1;
  };
  b.Member("isLoopback", {IP}, B,
           [loopback](EvalContext&, const Args& a) { return Value::Bool(loopback(IpOf(a[0]))); });
  b.Member("isLinkLocalMulticast", {IP}, B, [](EvalContext&, const Args& a) {
    IpAddr ip = IpOf(a[0]);
    if (!ip.v6) return Value::Bool(ip.b[0] == 224 && ip.b[1] == 0 && ip.b[2] == 0);
    return Value::Bool(ip.b[0] == 0xFF && (ip.b[1] & 0x0F) == 0x02);
  });
  b.Member("isLinkLocalUnicast", {IP}, B, [](EvalContext&, const Args& a) {
    IpAddr ip = IpOf(a[0]);
    if (!ip.v6) return Value::Bool(ip.b[0] == 169 && ip.b[1] == 254);
    return Value::Bool(ip.b[0] == 0xFE && (ip.b[1] & 0xC0) == 0x80);
  });
  b.Member("isGlobalUnicast", {IP}, B, [loopback](EvalContext&, const Args& a) {
    IpAddr ip = IpOf(a[0]);
    bool unspecified = std::all_of(ip.b.begin(), ip.b.begin() + static_cast<long>(ip.Len()),
                                   [](uint8_t x) { return x == 0; });
    if (unspecified || loopback(ip)) return Value::Bool(false);
    if (!ip.v6) {
      bool multicast = (ip.b[0] & 0xF0) == 0xE0;
      bool link_local = ip.b[0] == 169 && ip.b[1] == 254;
      bool broadcast = ip.b[0] == 255 && ip.b[1] == 255 && ip.b[2] == 255 && ip.b[3] == 255;
      return Value::Bool(!multicast && !link_local && !broadcast);
    }
    bool multicast = ip.b[0] == 0xFF;
    bool link_local = ip.b[0] == 0xFE && (ip.b[1] & 0xC0) == 0x80;
    return Value::Bool(!multicast && !link_local);
  });
  b.Global("isCIDR", {S}, B, [](EvalContext&, const Args& a) {
    std::string err;
    return Value::Bool(ParseK8sCidr(a[0].str(), &err).has_value());
  });
  b.Global("cidr", {S}, CIDR, [](EvalContext&, const Args& a) {
    std::string err;
    auto p = ParseK8sCidr(a[0].str(), &err);
    if (!p) return Value::Error(err);
    return CidrValue(*p);
  });
  b.Member("containsIP", {CIDR, IP}, B, [](EvalContext&, const Args& a) {
    return Value::Bool(PrefixContains(PrefixOf(a[0]), IpOf(a[1])));
  });
  b.Member("containsIP", {CIDR, S}, B, [](EvalContext&, const Args& a) {
    std::string err;
    auto ip = ParseK8sIp(a[1].str(), &err);
    if (!ip) return Value::Error(err);
    return Value::Bool(PrefixContains(PrefixOf(a[0]), *ip));
  });
  auto contains_cidr = [](const Prefix& outer, const Prefix& inner) {
    return outer.addr.v6 == inner.addr.v6 && inner.bits >= outer.bits &&
           PrefixContains(outer, inner.addr);
  };
  b.Member("containsCIDR", {CIDR, CIDR}, B, [contains_cidr](EvalContext&, const Args& a) {
    return Value::Bool(contains_cidr(PrefixOf(a[0]), PrefixOf(a[1])));
  });
  b.Member("containsCIDR", {CIDR, S}, B, [contains_cidr](EvalContext&, const Args& a) {
    std::string err;
    auto p = ParseK8sCidr(a[1].str(), &err);
    if (!p) return Value::Error(err);
    return Value::Bool(contains_cidr(PrefixOf(a[0]), *p));
  });
  b.Member("ip", {CIDR}, IP,
           [](EvalContext&, const Args& a) { return Value::IP(AddrString(PrefixOf(a[0]).addr)); });
  b.Member("masked", {CIDR}, CIDR, [](EvalContext&, const Args& a) {
    Prefix p = PrefixOf(a[0]);
    p.addr = Masked(p.addr, p.bits);
    return CidrValue(p);
  });
  b.Member("prefixLength", {CIDR}, I,
           [](EvalContext&, const Args& a) { return Value::Int(PrefixOf(a[0]).bits); });
  for (const auto& t : {IP, CIDR}) {
    b.Global("string", {t}, S,
             [](EvalContext&, const Args& a) { return Value::String(a[0].str()); });
  }
}

const Registry& GetRegistry() {
  static const Registry registry = [] {
    Registry r;
    Builder b(r);
    RegisterOperators(b);
    RegisterConversions(b);
    RegisterTime(b);
    RegisterStrings(b);
    RegisterLists(b);
    RegisterOptional(b);
    RegisterQuantity(b);
    RegisterUrls(b);
    RegisterNet(b);
    return r;
  }();
  return registry;
}

}  // namespace

const std::vector<Overload>* FindFunction(std::string_view name) {
  const auto& r = GetRegistry();
  auto it = r.find(std::string(name));
  return it == r.end() ? nullptr : &it->second;
}

}  // namespace apiextensions::cel
