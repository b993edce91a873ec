#include "pkg/genericserver/apimachinery/patch/go_format.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>

namespace apimachinery::patch {
namespace {

// strconv.FormatFloat(v, 'g', -1, 64): the shortest digits that round-trip, in %e form when
// the exponent is below -4 or at least 6 (the precision Go uses for that choice when the
// precision is "shortest"), else in %f form.
std::string GoFloat(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char buf[64];
  auto sci = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string s(buf, sci.ptr);
  size_t e = s.find('e');
  int exp = std::atoi(s.c_str() + e + 1);
  if (exp >= -4 && exp < 6) {
    auto fixed = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
    return std::string(buf, fixed.ptr);
  }
  std::string out = s.substr(0, e);
  out += exp < 0 ? "e-" : "e+";
  int abs_exp = std::abs(exp);
  if (abs_exp < 10) out += '0';
  out += std::to_string(abs_exp);
  return out;
}

std::string IntText(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
  return std::to_string(v.get<int64_t>());
}

// Joins the elements of a map or slice printed with `print`, Go style.
template <typename Print>
std::string Composite(const nlohmann::json& v, Print print) {
  std::string out = v.is_object() ? "map[" : "[";
  bool first = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!first) out += ' ';
    first = false;
    if (v.is_object()) out += it.key() + ":";
    out += print(*it);
  }
  return out + "]";
}

}  // namespace

GoKind GoKindOf(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::boolean:
      return GoKind::kBool;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return GoKind::kInt;
    case nlohmann::json::value_t::number_float:
      return GoKind::kFloat;
    case nlohmann::json::value_t::string:
      return GoKind::kString;
    case nlohmann::json::value_t::object:
      return GoKind::kMap;
    case nlohmann::json::value_t::array:
      return GoKind::kSlice;
    default:
      return GoKind::kNil;
  }
}

std::string GoValue(const nlohmann::json& v) {
  switch (GoKindOf(v)) {
    case GoKind::kNil:
      return "<nil>";
    case GoKind::kBool:
      return v.get<bool>() ? "true" : "false";
    case GoKind::kInt:
      return IntText(v);
    case GoKind::kFloat:
      return GoFloat(v.get<double>());
    case GoKind::kString:
      return v.get<std::string>();
    case GoKind::kMap:
    case GoKind::kSlice:
      return Composite(v, [](const nlohmann::json& e) { return GoValue(e); });
  }
  return "";
}

std::string GoString(const nlohmann::json& v) {
  switch (GoKindOf(v)) {
    case GoKind::kNil:
      return "%!s(<nil>)";
    case GoKind::kBool:
    case GoKind::kInt:
    case GoKind::kFloat:
      return "%!s(" + GoTypeName(v) + "=" + GoValue(v) + ")";
    case GoKind::kString:
      return v.get<std::string>();
    case GoKind::kMap:
    case GoKind::kSlice:
      return Composite(v, [](const nlohmann::json& e) { return GoString(e); });
  }
  return "";
}

std::string GoTypeName(const nlohmann::json& v) {
  switch (GoKindOf(v)) {
    case GoKind::kNil:
      return "%!s(<nil>)";
    case GoKind::kBool:
      return "bool";
    case GoKind::kInt:
      return "int64";
    case GoKind::kFloat:
      return "float64";
    case GoKind::kString:
      return "string";
    case GoKind::kMap:
      return "map[string]interface {}";
    case GoKind::kSlice:
      return "[]interface {}";
  }
  return "";
}

}  // namespace apimachinery::patch
