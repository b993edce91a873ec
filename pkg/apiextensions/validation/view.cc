// The CRD as upstream validates it: the internal form the v1 object converts to, with the
// per-version fields that are identical in every version hoisted to the spec.

#include <set>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/internal.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace apiextensions::validation::internal {

namespace v = apimachinery::validation;
using nlohmann::json;

namespace {

// Go fields of JSONSchemaProps that are values (not pointers, lists or maps): their zero
// value and absence decode alike.
const std::set<std::string, std::less<>> kSchemaStringFields = {
    "id", "$schema", "description", "type", "format", "title", "pattern"};
const std::set<std::string, std::less<>> kSchemaBoolFields = {"nullable",
                                                              "exclusiveMaximum",
                                                              "exclusiveMinimum",
                                                              "uniqueItems",
                                                              "x-kubernetes-embedded-resource",
                                                              "x-kubernetes-int-or-string"};
// Lists and maps: empty and absent are alike to Semantic.DeepEqual.
const std::set<std::string, std::less<>> kSchemaListFields = {"enum", "required",
                                                              "x-kubernetes-list-map-keys"};
const std::set<std::string, std::less<>> kSchemaListOfSchemas = {"allOf", "oneOf", "anyOf"};
const std::set<std::string, std::less<>> kSchemaMapOfSchemas = {"properties", "patternProperties",
                                                                "definitions", "dependencies"};
const std::set<std::string, std::less<>> kSchemaPointerSchemas = {
    "not", "items", "additionalProperties", "additionalItems"};

json CanonicalSchema(const json& s);

// A schema-or-something-else value (items, additionalProperties, dependencies entries).
json CanonicalSchemaish(const json& v) {
  if (v.is_object()) return CanonicalSchema(v);
  if (v.is_array()) {
    json out = json::array();
    for (const json& e : v) out.push_back(e.is_object() ? CanonicalSchema(e) : e);
    return out;
  }
  return v;
}

json CanonicalRule(const json& r) {
  if (!r.is_object()) return r;
  json out = json::object();
  for (const auto& [k, e] : r.items()) {
    if (e.is_null()) continue;
    const bool value_string =
        k == "rule" || k == "message" || k == "messageExpression" || k == "fieldPath";
    if (value_string && e.is_string() && e.get<std::string>().empty()) continue;
    out[k] = e;
  }
  return out;
}

json CanonicalSchema(const json& s) {
  if (!s.is_object()) return s;
  json out = json::object();
  for (const auto& [k, e] : s.items()) {
    if (e.is_null()) continue;
    if (kSchemaStringFields.contains(k)) {
      if (e.is_string() && e.get<std::string>().empty()) continue;
      out[k] = e;
    } else if (kSchemaBoolFields.contains(k)) {
      if (e.is_boolean() && !e.get<bool>()) continue;
      out[k] = e;
    } else if (kSchemaListFields.contains(k)) {
      if ((e.is_array() || e.is_object()) && e.empty()) continue;
      out[k] = e;
    } else if (kSchemaListOfSchemas.contains(k)) {
      if (!e.is_array()) {
        out[k] = e;
        continue;
      }
      if (e.empty()) continue;
      json list = json::array();
      for (const json& x : e) list.push_back(CanonicalSchema(x));
      out[k] = std::move(list);
    } else if (kSchemaMapOfSchemas.contains(k)) {
      if (!e.is_object()) {
        out[k] = e;
        continue;
      }
      if (e.empty()) continue;
      json map = json::object();
      for (const auto& [name, x] : e.items()) map[name] = CanonicalSchemaish(x);
      out[k] = std::move(map);
    } else if (kSchemaPointerSchemas.contains(k)) {
      out[k] = CanonicalSchemaish(e);
    } else if (k == "x-kubernetes-validations") {
      if (!e.is_array()) {
        out[k] = e;
        continue;
      }
      if (e.empty()) continue;
      json list = json::array();
      for (const json& x : e) list.push_back(CanonicalRule(x));
      out[k] = std::move(list);
    } else {
      out[k] = e;
    }
  }
  return out;
}

// A version's "schema" (CustomResourceValidation, a pointer): nullopt for nil.
std::optional<json> CanonicalValidation(const json* validation) {
  if (validation == nullptr) return std::nullopt;
  json out = json::object();
  if (const json* s = Get(validation, "openAPIV3Schema"))
    out["openAPIV3Schema"] = CanonicalSchema(*s);
  return out;
}

std::optional<json> CanonicalSubresources(const json* sub) {
  if (sub == nullptr) return std::nullopt;
  json out = json::object();
  if (const json* status = Get(sub, "status")) out["status"] = *status;
  if (const json* scale = Get(sub, "scale")) {
    json s = json::object();
    if (scale->is_object()) {
      for (const auto& [k, e] : scale->items()) {
        if (e.is_null()) continue;
        if ((k == "specReplicasPath" || k == "statusReplicasPath") && e.is_string() &&
            e.get<std::string>().empty()) {
          continue;
        }
        s[k] = e;
      }
    }
    out["scale"] = std::move(s);
  }
  return out;
}

// Printer columns and selectable fields: lists of structs of values, empty like absent.
json CanonicalStructList(const json* list) {
  json out = json::array();
  if (list == nullptr || !list->is_array()) return out;
  for (const json& item : *list) {
    json c = json::object();
    if (item.is_object()) {
      for (const auto& [k, e] : item.items()) {
        if (e.is_null()) continue;
        if (e.is_string() && e.get<std::string>().empty()) continue;
        if (k == "priority" && e.is_number() && e.get<double>() == 0) continue;
        c[k] = e;
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

const json* ArrayMember(const json& obj, std::string_view key) {
  const json* v = Get(obj, key);
  return v != nullptr && v->is_array() ? v : nullptr;
}

const json* ObjectMember(const json& obj, std::string_view key) {
  const json* v = Get(obj, key);
  return v != nullptr && v->is_object() ? v : nullptr;
}

}  // namespace

Crd View(const json& crd) {
  Crd view;
  view.object = &crd;
  view.spec = ObjectMember(crd, "spec");
  const json* spec = view.spec;
  view.group = Str(spec, "group");
  view.scope = Str(spec, "scope");
  if (spec != nullptr) view.names = ObjectMember(*spec, "names");
  view.preserve_unknown_fields = Bool(spec, "preserveUnknownFields");
  if (spec != nullptr) view.conversion = ObjectMember(*spec, "conversion");

  const json* versions = spec == nullptr ? nullptr : ArrayMember(*spec, "versions");
  view.versions_present = versions != nullptr;
  std::vector<const json*> validations;
  if (versions != nullptr) {
    for (size_t i = 0; i < versions->size(); ++i) {
      static const json kEmpty = json::object();
      const json& raw = (*versions)[i].is_object() ? (*versions)[i] : kEmpty;
      Version ver;
      ver.index = i;
      ver.name = Str(&raw, "name");
      ver.served = Bool(&raw, "served");
      ver.storage = Bool(&raw, "storage");
      ver.deprecated = Bool(&raw, "deprecated");
      const json* warning = Get(raw, "deprecationWarning");
      if (warning != nullptr && warning->is_string()) ver.deprecation_warning = warning;
      const json* validation = ObjectMember(raw, "schema");
      validations.push_back(validation);
      ver.has_schema = validation != nullptr;
      ver.schema = validation == nullptr ? nullptr : ObjectMember(*validation, "openAPIV3Schema");
      ver.subresources = ObjectMember(raw, "subresources");
      ver.columns = ArrayMember(raw, "additionalPrinterColumns");
      ver.selectable = ArrayMember(raw, "selectableFields");
      view.versions.push_back(ver);
    }
  }
  if (view.versions.empty()) return view;
  view.version = view.versions[0].name;

  // Upstream's v1 -> internal conversion: identical per-version fields move to the spec.
  const std::optional<json> validation0 = CanonicalValidation(validations[0]);
  const std::optional<json> sub0 = CanonicalSubresources(view.versions[0].subresources);
  const json cols0 = CanonicalStructList(view.versions[0].columns);
  const json sel0 = CanonicalStructList(view.versions[0].selectable);
  bool same_validation = true, same_sub = true, same_cols = true, same_sel = true;
  for (size_t i = 0; i < view.versions.size(); ++i) {
    const Version& ver = view.versions[i];
    same_validation = same_validation && CanonicalValidation(validations[i]) == validation0;
    same_sub = same_sub && CanonicalSubresources(ver.subresources) == sub0;
    same_cols = same_cols && CanonicalStructList(ver.columns) == cols0;
    same_sel = same_sel && CanonicalStructList(ver.selectable) == sel0;
  }
  const Version first = view.versions[0];
  if (same_sub) view.subresources = first.subresources;
  if (same_validation) {
    view.has_validation = first.has_schema;
    view.validation_schema = first.schema;
  }
  if (same_cols) view.columns = first.columns;
  if (same_validation && same_sel) view.selectable = first.selectable;
  for (Version& ver : view.versions) {
    if (same_sub) ver.subresources = nullptr;
    if (same_validation) {
      ver.has_schema = false;
      ver.schema = nullptr;
    }
    if (same_cols) ver.columns = nullptr;
    if (same_validation && same_sel) ver.selectable = nullptr;
  }
  return view;
}

bool SameValidation(const json* a, const json* b) {
  return CanonicalValidation(a) == CanonicalValidation(b);
}

std::string GoVersions(const Crd& crd) {
  // Go prints a set pointer as its address, which no rendering here can match; a fixed
  // stand-in keeps the message deterministic.
  static constexpr std::string_view kAddress = "0xc000000000";
  auto pointer = [](std::string_view type, bool set) {
    std::string out = "(*" + std::string(type) + ")(";
    out += set ? std::string(kAddress) : std::string("nil");
    return out + ")";
  };
  if (!crd.versions_present) return "[]apiextensions.CustomResourceDefinitionVersion(nil)";
  std::string out = "[]apiextensions.CustomResourceDefinitionVersion{";
  for (size_t i = 0; i < crd.versions.size(); ++i) {
    const Version& ver = crd.versions[i];
    if (i > 0) out += ", ";
    out += "apiextensions.CustomResourceDefinitionVersion{Name:" + v::GoQuote(ver.name);
    out += std::string(", Served:") + (ver.served ? "true" : "false");
    out += std::string(", Storage:") + (ver.storage ? "true" : "false");
    out += std::string(", Deprecated:") + (ver.deprecated ? "true" : "false");
    out += ", DeprecationWarning:" + pointer("string", ver.deprecation_warning != nullptr);
    out += ", Schema:" + pointer("apiextensions.CustomResourceValidation", ver.has_schema);
    out += ", Subresources:" +
           pointer("apiextensions.CustomResourceSubresources", ver.subresources != nullptr);
    out += ", AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition";
    if (ver.columns == nullptr) {
      out += "(nil)";
    } else {
      out += "{";
      for (size_t j = 0; j < ver.columns->size(); ++j) {
        const json& c = (*ver.columns)[j];
        if (j > 0) out += ", ";
        const json* prio = Get(c, "priority");
        out += "apiextensions.CustomResourceColumnDefinition{Name:" + v::GoQuote(Str(&c, "name")) +
               ", Type:" + v::GoQuote(Str(&c, "type")) +
               ", Format:" + v::GoQuote(Str(&c, "format")) +
               ", Description:" + v::GoQuote(Str(&c, "description")) + ", Priority:" +
               (prio != nullptr && prio->is_number_integer() ? std::to_string(prio->get<int64_t>())
                                                             : std::string("0")) +
               ", JSONPath:" + v::GoQuote(Str(&c, "jsonPath")) + "}";
      }
      out += "}";
    }
    out += ", SelectableFields:[]apiextensions.SelectableField";
    if (ver.selectable == nullptr) {
      out += "(nil)";
    } else {
      out += "{";
      for (size_t j = 0; j < ver.selectable->size(); ++j) {
        if (j > 0) out += ", ";
        out += "apiextensions.SelectableField{JSONPath:" +
               v::GoQuote(Str(&(*ver.selectable)[j], "jsonPath")) + "}";
      }
      out += "}";
    }
    out += "}";
  }
  return out + "}";
}

}  // namespace apiextensions::validation::internal
