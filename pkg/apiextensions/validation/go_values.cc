// How upstream's field errors print the Go values the CRD's JSON decodes to.

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <system_error>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/internal.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace apiextensions::validation::internal {

namespace v = apimachinery::validation;
using nlohmann::json;

std::string GoFloat(double value) {
  // strconv.FormatFloat(f, 'g', -1, 64): the shortest digits, in %e form when the decimal
  // exponent is below -4 or at least 6 (the precision 'g' assumes for shortest output).
  char sci[64];
  auto r = std::to_chars(sci, sci + sizeof sci, value, std::chars_format::scientific);
  if (r.ec != std::errc()) return "0";
  std::string s(sci, r.ptr);
  const size_t e = s.find('e');
  const int exp = std::atoi(s.c_str() + e + 1);
  if (exp < -4 || exp >= 6) return s;  // C++ and Go agree: 1.5e+06, 1e-05
  char fixed[400];
  r = std::to_chars(fixed, fixed + sizeof fixed, value, std::chars_format::fixed);
  if (r.ec != std::errc()) return s;
  return std::string(fixed, r.ptr);
}

std::string GoValue(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "interface {}(nil)";
    case json::value_t::boolean:
      return value.get<bool>() ? "true" : "false";
    case json::value_t::number_integer:
      return std::to_string(value.get<int64_t>());
    case json::value_t::number_unsigned:
      return std::to_string(value.get<uint64_t>());
    case json::value_t::number_float:
      return GoFloat(value.get<double>());
    case json::value_t::string:
      return v::GoQuote(value.get<std::string>());
    case json::value_t::array: {
      std::string out = "[]interface {}{";
      bool first = true;
      for (const json& e : value) {
        if (!first) out += ", ";
        first = false;
        out += GoValue(e);
      }
      return out + "}";
    }
    case json::value_t::object: {
      // fmt prints maps with their keys sorted, as nlohmann keeps them.
      std::string out = "map[string]interface {}{";
      bool first = true;
      for (const auto& [k, e] : value.items()) {
        if (!first) out += ", ";
        first = false;
        out += v::GoQuote(k) + ":" + GoValue(e);
      }
      return out + "}";
    }
    default:
      return "interface {}(nil)";
  }
}

std::string GoBytes(std::string_view bytes) {
  std::string out = "[]byte{";
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i > 0) out += ", ";
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%x", static_cast<unsigned char>(bytes[i]));
    out += buf;
  }
  return out + "}";
}

namespace {

constexpr std::string_view kAddress = "0xc000000000";

std::string Pointer(std::string_view type, bool set) {
  return "(*" + std::string(type) + ")(" + (set ? std::string(kAddress) : "nil") + ")";
}

std::string GoStrings(const json* list) {
  if (list == nullptr || !list->is_array()) return "[]string(nil)";
  std::vector<std::string> values;
  for (const json& e : *list) values.push_back(e.is_string() ? e.get<std::string>() : "");
  return v::GoStringSlice(values);
}

std::string SchemaList(std::string_view type, const json* list) {
  std::string out(type);
  if (list == nullptr || !list->is_array()) return out + "(nil)";
  out += "{";
  for (size_t i = 0; i < list->size(); ++i) {
    if (i > 0) out += ", ";
    out += GoSchemaProps((*list)[i]);
  }
  return out + "}";
}

std::string SchemaMap(std::string_view type, const json* map) {
  std::string out(type);
  if (map == nullptr || !map->is_object()) return out + "(nil)";
  out += "{";
  bool first = true;
  for (const auto& [k, e] : map->items()) {
    if (!first) out += ", ";
    first = false;
    out += v::GoQuote(k) + ":" + GoSchemaProps(e);
  }
  return out + "}";
}

}  // namespace

std::string GoSchemaProps(const json& s) {
  const json* p = &s;
  auto str = [&](const char* k) { return v::GoQuote(Str(p, k)); };
  auto boolean = [&](const char* k) { return std::string(Bool(p, k) ? "true" : "false"); };
  auto ptr = [&](std::string_view type, const char* k) {
    return Pointer(type, Get(p, k) != nullptr);
  };
  std::string out = "apiextensions.JSONSchemaProps{";
  out += "ID:" + str("id") + ", Schema:" + str("$schema") + ", Ref:" + ptr("string", "$ref");
  out += ", Description:" + str("description") + ", Type:" + str("type");
  out += ", Nullable:" + boolean("nullable") + ", Format:" + str("format");
  out += ", Title:" + str("title") + ", Default:" + ptr("apiextensions.JSON", "default");
  out += ", Maximum:" + ptr("float64", "maximum");
  out += ", ExclusiveMaximum:" + boolean("exclusiveMaximum");
  out += ", Minimum:" + ptr("float64", "minimum");
  out += ", ExclusiveMinimum:" + boolean("exclusiveMinimum");
  out += ", MaxLength:" + ptr("int64", "maxLength") + ", MinLength:" + ptr("int64", "minLength");
  out += ", Pattern:" + str("pattern") + ", MaxItems:" + ptr("int64", "maxItems");
  out += ", MinItems:" + ptr("int64", "minItems") + ", UniqueItems:" + boolean("uniqueItems");
  out += ", MultipleOf:" + ptr("float64", "multipleOf") + ", Enum:[]apiextensions.JSON";
  if (const json* e = Get(p, "enum"); e != nullptr && e->is_array()) {
    out += "{";
    for (size_t i = 0; i < e->size(); ++i) {
      if (i > 0) out += ", ";
      out += GoValue((*e)[i]);
    }
    out += "}";
  } else {
    out += "(nil)";
  }
  out += ", MaxProperties:" + ptr("int64", "maxProperties");
  out += ", MinProperties:" + ptr("int64", "minProperties");
  out += ", Required:" + GoStrings(Get(p, "required"));
  out += ", Items:" + ptr("apiextensions.JSONSchemaPropsOrArray", "items");
  out += ", AllOf:" + SchemaList("[]apiextensions.JSONSchemaProps", Get(p, "allOf"));
  out += ", OneOf:" + SchemaList("[]apiextensions.JSONSchemaProps", Get(p, "oneOf"));
  out += ", AnyOf:" + SchemaList("[]apiextensions.JSONSchemaProps", Get(p, "anyOf"));
  out += ", Not:" + ptr("apiextensions.JSONSchemaProps", "not");
  out +=
      ", Properties:" + SchemaMap("map[string]apiextensions.JSONSchemaProps", Get(p, "properties"));
  out += ", AdditionalProperties:" +
         ptr("apiextensions.JSONSchemaPropsOrBool", "additionalProperties");
  out += ", PatternProperties:" +
         SchemaMap("map[string]apiextensions.JSONSchemaProps", Get(p, "patternProperties"));
  out += ", Dependencies:apiextensions.JSONSchemaDependencies";
  out += Get(p, "dependencies") != nullptr ? "{}" : "(nil)";
  out += ", AdditionalItems:" + ptr("apiextensions.JSONSchemaPropsOrBool", "additionalItems");
  out += ", Definitions:" + SchemaMap("apiextensions.JSONSchemaDefinitions", Get(p, "definitions"));
  out += ", ExternalDocs:" + ptr("apiextensions.ExternalDocumentation", "externalDocs");
  out += ", Example:" + ptr("apiextensions.JSON", "example");
  out += ", XPreserveUnknownFields:" + ptr("bool", "x-kubernetes-preserve-unknown-fields");
  out += ", XEmbeddedResource:" + boolean("x-kubernetes-embedded-resource");
  out += ", XIntOrString:" + boolean("x-kubernetes-int-or-string");
  out += ", XListMapKeys:" + GoStrings(Get(p, "x-kubernetes-list-map-keys"));
  out += ", XListType:" + ptr("string", "x-kubernetes-list-type");
  out += ", XMapType:" + ptr("string", "x-kubernetes-map-type");
  out += ", XValidations:apiextensions.ValidationRules";
  if (const json* rules = Get(p, "x-kubernetes-validations");
      rules != nullptr && rules->is_array()) {
    out += "{";
    for (size_t i = 0; i < rules->size(); ++i) {
      const json* r = &(*rules)[i];
      if (i > 0) out += ", ";
      out += "apiextensions.ValidationRule{Rule:" + v::GoQuote(Str(r, "rule")) +
             ", Message:" + v::GoQuote(Str(r, "message")) +
             ", MessageExpression:" + v::GoQuote(Str(r, "messageExpression")) + ", Reason:" +
             Pointer("apiextensions.FieldValueErrorReason", Get(r, "reason") != nullptr) +
             ", FieldPath:" + v::GoQuote(Str(r, "fieldPath")) +
             ", OptionalOldSelf:" + Pointer("bool", Get(r, "optionalOldSelf") != nullptr) + "}";
    }
    out += "}";
  } else {
    out += "(nil)";
  }
  return out + "}";
}

std::string GoSchemaPropsOrArray(const json& items) {
  std::string out = "apiextensions.JSONSchemaPropsOrArray{Schema:";
  out += Pointer("apiextensions.JSONSchemaProps", items.is_object());
  out += ", JSONSchemas:" +
         SchemaList("[]apiextensions.JSONSchemaProps", items.is_array() ? &items : nullptr);
  return out + "}";
}

FieldError InvalidVerbatim(std::string path, std::string value, std::string detail) {
  FieldError e = v::FieldInvalid(std::move(path), std::move(value), std::move(detail));
  e.value_form = v::ValueForm::kVerbatim;
  return e;
}

FieldError InvalidJSON(std::string path, const json& value, std::string detail) {
  if (value.is_string()) {
    return v::FieldInvalid(std::move(path), value.get<std::string>(), std::move(detail));
  }
  if (value.is_null()) return InvalidVerbatim(std::move(path), "null", std::move(detail));
  return InvalidVerbatim(std::move(path), GoValue(value), std::move(detail));
}

}  // namespace apiextensions::validation::internal
