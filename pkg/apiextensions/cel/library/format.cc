// The strings extension's format(): %s, %d, %f, %e, %b, %o, %x and %X clauses as cel-go
// renders them.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "pkg/apiextensions/cel/library/internal.h"

namespace apiextensions::cel::internal {

namespace {

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

}  // namespace

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

}  // namespace apiextensions::cel::internal
