#include "pkg/apiextensions/schema/openapi_parts.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/schema/formats.h"
#include "pkg/apiextensions/schema/schema_node.h"
#include "pkg/apiextensions/schema/values.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace apiextensions::schema::openapi {

std::string FieldPath(const std::string& name) {
  if (name.empty() || name == ".") return "<nil>";
  return name[0] == '.' ? name.substr(1) : name;
}

Error Invalid(const std::string& name, std::string message, const json& value) {
  v::FieldError f = v::FieldInvalid(FieldPath(name), "", message);
  SetBadValue(f, value);
  return {std::move(message), std::move(f)};
}

Error InvalidInt(const std::string& name, std::string message, int64_t value) {
  v::FieldError f = v::FieldInvalid(FieldPath(name), "", message);
  SetBadValueInt(f, value);
  return {std::move(message), std::move(f)};
}

Error InvalidType(const std::string& name, const std::string& type_name, const std::string& value) {
  std::string message = name + kIn + " must be of type " + type_name + ": " + v::GoQuote(value);
  v::FieldError f;
  f.type = std::string(v::kFieldValueTypeInvalid);
  f.field = FieldPath(name);
  f.bad_value = value;
  f.detail = message;
  f.value_form = v::ValueForm::kQuoted;
  return {std::move(message), std::move(f)};
}

Error Composite(std::string message) {
  v::FieldError f = v::FieldInvalid("<nil>", "", message);
  return {std::move(message), std::move(f)};
}

bool IsFloat64AJSONInteger(double f) {
  constexpr double kMax = 9007199254740991.0;  // 1<<53 - 1
  if (std::isnan(f) || std::isinf(f) || f < -kMax || f > kMax) return false;
  if (f == std::trunc(f)) return true;
  if (f < 0) return false;
  const double g = std::trunc(f);
  const double diff = f - g;
  if (g == 0) return false;  // diff < 1e-9 * SmallestNonzeroFloat64 never holds here
  return diff / (f + g) < 1e-9;
}

NodeInfo Info(const json& s) {
  NodeInfo info;
  const std::string type = node::String(&s, "type");
  if (!type.empty()) info.types.push_back(type);
  if (node::Flag(&s, "x-kubernetes-int-or-string")) info.types = {"integer", "string"};
  info.nullable = node::Nullable(&s);
  const std::string format = node::String(&s, "format");
  if (!format.empty()) {
    if (auto name = SupportedFormat(format)) {
      info.format = format;
      info.format_name = *name;
    }
  }
  return info;
}

bool Contains(const std::vector<std::string>& types, std::string_view t) {
  for (const std::string& type : types) {
    if (type == t) return true;
  }
  return false;
}

std::string Join(const std::vector<std::string>& types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) out += ',';
    out += types[i];
  }
  return out;
}

std::optional<double> NumberKeyword(const json& s, const char* key) {
  auto it = s.find(key);
  if (it == s.end() || !it->is_number()) return std::nullopt;
  return AsFloat64(*it);
}

std::optional<int64_t> Integer(const json& s, const char* key) {
  auto it = s.find(key);
  if (it == s.end() || !it->is_number()) return std::nullopt;
  if (it->is_number_float()) return GoFloatToInt64(it->get<double>());
  return AsInt64(*it);
}

bool DeepEqual(const json& a, const json& b);

bool EnumMatches(const json& data, const json& allowed) {
  const GoKind dk = KindOf(data), ak = KindOf(allowed);
  switch (ak) {
    case GoKind::kNull:
      return false;  // a nil enum value is skipped upstream
    case GoKind::kString:
      if (dk == GoKind::kString)
        return data.get_ref<const std::string&>() == allowed.get_ref<const std::string&>();
      if (dk == GoKind::kInt64) {
        // string(int64): the UTF-8 encoding of that code point (U+FFFD when invalid).
        const int64_t i = AsInt64(data);
        std::string rune;
        v::AppendRune(rune, i < 0 || i > 0x10FFFF ? 0xFFFD : static_cast<char32_t>(i));
        return rune == allowed.get_ref<const std::string&>();
      }
      return false;
    case GoKind::kBool:
      return dk == GoKind::kBool && data.get<bool>() == allowed.get<bool>();
    case GoKind::kInt64:
      if (dk == GoKind::kInt64) return AsInt64(data) == AsInt64(allowed);
      if (dk == GoKind::kFloat64) return GoFloatToInt64(AsFloat64(data)) == AsInt64(allowed);
      return false;
    case GoKind::kFloat64:
      if (dk == GoKind::kInt64 || dk == GoKind::kFloat64)
        return AsFloat64(data) == AsFloat64(allowed);
      return false;
    case GoKind::kSlice:
    case GoKind::kMap:
      return dk == ak && DeepEqual(data, allowed);
  }
  return false;
}

bool DeepEqual(const json& a, const json& b) {
  const GoKind ka = KindOf(a), kb = KindOf(b);
  if (ka != kb) return false;
  switch (ka) {
    case GoKind::kNull:
      return true;
    case GoKind::kBool:
      return a.get<bool>() == b.get<bool>();
    case GoKind::kInt64:
      return AsInt64(a) == AsInt64(b);
    case GoKind::kFloat64:
      return AsFloat64(a) == AsFloat64(b);
    case GoKind::kString:
      return a.get_ref<const std::string&>() == b.get_ref<const std::string&>();
    case GoKind::kSlice: {
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!DeepEqual(a[i], b[i])) return false;
      }
      return true;
    }
    case GoKind::kMap: {
      if (a.size() != b.size()) return false;
      auto ia = a.begin();
      auto ib = b.begin();
      for (; ia != a.end(); ++ia, ++ib) {
        if (ia.key() != ib.key() || !DeepEqual(ia.value(), ib.value())) return false;
      }
      return true;
    }
  }
  return false;
}

std::string EnumList(const json& values) {
  std::string out = "[";
  bool first = true;
  for (const json& value : values) {
    if (!first) out += ' ';
    first = false;
    if (value.is_string()) {
      out += value.get<std::string>();
    } else if (value.is_null()) {
      out += "<nil>";
    } else {
      out += GoJSONMarshal(value);
    }
  }
  return out + "]";
}

}  // namespace apiextensions::schema::openapi
