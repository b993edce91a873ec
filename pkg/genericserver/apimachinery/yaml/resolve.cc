#include "pkg/genericserver/apimachinery/yaml/resolve.h"

#include <iterator>
#include <limits>
#include <optional>

#include "pkg/genericserver/apimachinery/yaml/go_parse.h"

namespace apimachinery::yaml::internal {

namespace {

// The outcome of resolution: the tag go-yaml would give the scalar, and its value.
enum class RTag { kNull, kBool, kInt, kFloat, kString, kTimestamp };

struct Outcome {
  RTag tag = RTag::kString;
  ResolvedScalar value;
};

std::string Tag(std::string_view name) { return std::string(kYAMLTagPrefix) + std::string(name); }

std::string_view RTagName(RTag t) {
  switch (t) {
    case RTag::kNull:
      return "null";
    case RTag::kBool:
      return "bool";
    case RTag::kInt:
      return "int";
    case RTag::kFloat:
      return "float";
    case RTag::kTimestamp:
      return "timestamp";
    case RTag::kString:
      break;
  }
  return "str";
}

Outcome Make(RTag tag, ScalarKind kind) {
  Outcome o;
  o.tag = tag;
  o.value.kind = kind;
  return o;
}

Outcome Bool(bool b) {
  Outcome o = Make(RTag::kBool, ScalarKind::kBool);
  o.value.boolean = b;
  return o;
}

Outcome Float(double f) {
  Outcome o = Make(RTag::kFloat, ScalarKind::kFloat);
  o.value.floating = f;
  return o;
}

// The fixed spellings go-yaml looks up first (booleans, nulls, infinities, NaN): v2 has YAML
// 1.1's booleans (y, yes, on, ...), v3 only true and false.
std::optional<Outcome> Lookup(std::string_view in, bool yaml11_booleans) {
  static constexpr std::string_view kTrue[] = {"true", "True", "TRUE", "y",  "Y", "yes",
                                               "Yes",  "YES",  "on",   "On", "ON"};
  static constexpr std::string_view kFalse[] = {"false", "False", "FALSE", "n",   "N",  "no",
                                                "No",    "NO",    "off",   "Off", "OFF"};
  static constexpr std::string_view kNull[] = {"", "~", "null", "Null", "NULL"};
  const std::size_t booleans = yaml11_booleans ? std::size(kTrue) : 3;
  for (std::size_t i = 0; i < booleans; ++i) {
    if (in == kTrue[i]) return Bool(true);
    if (in == kFalse[i]) return Bool(false);
  }
  for (const auto s : kNull) {
    if (in == s) return Make(RTag::kNull, ScalarKind::kNull);
  }
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (in == ".nan" || in == ".NaN" || in == ".NAN") {
    return Float(std::numeric_limits<double>::quiet_NaN());
  }
  if (in == ".inf" || in == ".Inf" || in == ".INF" || in == "+.inf" || in == "+.Inf" ||
      in == "+.INF") {
    return Float(kInf);
  }
  if (in == "-.inf" || in == "-.Inf" || in == "-.INF") return Float(-kInf);
  return std::nullopt;
}

// go-yaml's first-character hint: 'S' sign, 'D' digit, 'M' map only, '.' float, 0 string.
char Hint(std::string_view in) {
  if (in.empty()) return 'N';
  const char c = in[0];
  if (c == '+' || c == '-') return 'S';
  if (c >= '0' && c <= '9') return 'D';
  if (std::string_view("yYnNtTfFoO~").find(c) != std::string_view::npos) return 'M';
  if (c == '.') return '.';
  return 0;
}

Outcome Integer(std::int64_t v) {
  Outcome o = Make(RTag::kInt, ScalarKind::kInt);
  o.value.integer = v;
  return o;
}

Outcome Unsigned(std::uint64_t v) {
  Outcome o = Make(RTag::kInt, ScalarKind::kUint);
  o.value.unsigned_integer = v;
  return o;
}

// Ints, floats and timestamps: what follows a leading digit or sign.
std::optional<Outcome> Numeric(std::string_view in, bool try_timestamp) {
  if (try_timestamp && IsTimestamp(in)) return Make(RTag::kTimestamp, ScalarKind::kTimestamp);
  std::string plain;
  plain.reserve(in.size());
  for (const char c : in) {
    if (c != '_') plain.push_back(c);
  }
  if (const auto i = GoParseInt(plain)) return Integer(*i);
  if (const auto u = GoParseUint(plain)) return Unsigned(*u);
  if (IsYAMLStyleFloat(plain)) {
    if (const auto f = GoParseDecimalFloat(plain)) return Float(*f);
  }
  // (go-yaml's own 0b fallback is unreachable: ParseInt's base 0 already reads 0b.)
  return std::nullopt;
}

// go-yaml's resolve(tag, in) for the tags it can resolve ("" and the standard scalar tags);
// v3's differs only in its booleans.
Outcome ResolvePlain(std::string_view tag, std::string_view in, bool yaml11_booleans = true) {
  const char hint = Hint(in);
  if (hint == 0 || tag == Tag("str")) return Outcome{};
  if (auto o = Lookup(in, yaml11_booleans)) return *o;
  switch (hint) {
    case '.':
      if (in.find('_') == std::string_view::npos) {
        if (const auto f = GoParseDecimalFloat(in)) return Float(*f);
      }
      break;
    case 'D':
    case 'S':
      if (auto o = Numeric(in, tag.empty() || tag == Tag("timestamp"))) return *o;
      break;
    default:
      break;
  }
  return Outcome{};
}

}  // namespace

std::string ShortTag(std::string_view tag) {
  if (tag.starts_with(kYAMLTagPrefix)) {
    return "!!" + std::string(tag.substr(kYAMLTagPrefix.size()));
  }
  return std::string(tag);
}

std::expected<ResolvedScalar, std::string> Resolve(std::string_view tag, std::string_view text) {
  if (tag == Tag("binary")) {
    ResolvedScalar r;
    r.kind = ScalarKind::kBinary;
    return r;
  }
  const bool resolvable = tag.empty() || tag == Tag("str") || tag == Tag("bool") ||
                          tag == Tag("int") || tag == Tag("float") || tag == Tag("null") ||
                          tag == Tag("timestamp");
  if (!resolvable) return ResolvedScalar{};
  Outcome o = ResolvePlain(tag, text);
  if (tag.empty() || tag == Tag("str") || tag == Tag(RTagName(o.tag))) return o.value;
  // An explicit !!float takes integers (but not those above the int64 range).
  if (tag == Tag("float") && o.value.kind == ScalarKind::kInt) {
    return Float(static_cast<double>(o.value.integer)).value;
  }
  return std::unexpected("cannot decode !!" + std::string(RTagName(o.tag)) + " `" +
                         std::string(text) + "` as a " + ShortTag(tag));
}

bool NeedsQuotes(std::string_view s) {
  const auto r = Resolve("", s);
  return !r || r->kind != ScalarKind::kString || IsBase60Float(s);
}

bool NeedsQuotesV3(std::string_view s) {
  return ResolvePlain("", s, false).value.kind != ScalarKind::kString;
}

}  // namespace apimachinery::yaml::internal
