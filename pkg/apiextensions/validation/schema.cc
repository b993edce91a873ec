// A version's openAPIV3Schema (upstream's validateCustomResourceDefinitionValidation and
// ValidateCustomResourceDefinitionOpenAPISchema): the root restrictions, the structural
// rules, defaults, the OpenAPI features CRDs do not support, the x-kubernetes-* extensions
// (map and list types, list map keys), the shape of x-kubernetes-validations rules, and
// finally the compilation of those rules.

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/internal.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace apiextensions::validation::internal {

namespace v = apimachinery::validation;
using nlohmann::json;

namespace {

const json* Object(const json& s, std::string_view key) {
  const json* x = Get(s, key);
  return x != nullptr && x->is_object() ? x : nullptr;
}

const json* Array(const json& s, std::string_view key) {
  const json* x = Get(s, key);
  return x != nullptr && x->is_array() ? x : nullptr;
}

bool IsOpenAPIType(std::string_view t) {
  return t == "string" || t == "number" || t == "integer" || t == "boolean" || t == "array" ||
         t == "object";
}

// The fields a root schema may have when the status subresource is enabled: those that
// survive extracting properties[status] (Go field names, as upstream prints them).
constexpr std::string_view kAllowedAtRoot =
    "[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength "
    "MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties "
    "ExternalDocs Example XPreserveUnknownFields XValidations]";

enum class Kind { kString, kBool, kOther };
struct RootField {
  const char* json;
  Kind kind;
  bool allowed;
};
// JSONSchemaProps' fields in Go's order.
constexpr RootField kRootFields[] = {
    {"id", Kind::kString, false},
    {"$schema", Kind::kString, false},
    {"$ref", Kind::kOther, false},
    {"description", Kind::kString, true},
    {"type", Kind::kString, true},
    {"nullable", Kind::kBool, false},
    {"format", Kind::kString, true},
    {"title", Kind::kString, true},
    {"default", Kind::kOther, false},
    {"maximum", Kind::kOther, true},
    {"exclusiveMaximum", Kind::kBool, true},
    {"minimum", Kind::kOther, true},
    {"exclusiveMinimum", Kind::kBool, true},
    {"maxLength", Kind::kOther, true},
    {"minLength", Kind::kOther, true},
    {"pattern", Kind::kString, true},
    {"maxItems", Kind::kOther, true},
    {"minItems", Kind::kOther, true},
    {"uniqueItems", Kind::kBool, true},
    {"multipleOf", Kind::kOther, true},
    {"enum", Kind::kOther, false},
    {"maxProperties", Kind::kOther, false},
    {"minProperties", Kind::kOther, false},
    {"required", Kind::kOther, true},
    {"items", Kind::kOther, true},
    {"allOf", Kind::kOther, false},
    {"oneOf", Kind::kOther, false},
    {"anyOf", Kind::kOther, false},
    {"not", Kind::kOther, false},
    {"properties", Kind::kOther, true},
    {"additionalProperties", Kind::kOther, false},
    {"patternProperties", Kind::kOther, false},
    {"dependencies", Kind::kOther, false},
    {"additionalItems", Kind::kOther, false},
    {"definitions", Kind::kOther, false},
    {"externalDocs", Kind::kOther, true},
    {"example", Kind::kOther, true},
    {"x-kubernetes-preserve-unknown-fields", Kind::kOther, true},
    {"x-kubernetes-embedded-resource", Kind::kBool, false},
    {"x-kubernetes-int-or-string", Kind::kBool, false},
    {"x-kubernetes-list-map-keys", Kind::kOther, false},
    {"x-kubernetes-list-type", Kind::kOther, false},
    {"x-kubernetes-map-type", Kind::kOther, false},
    {"x-kubernetes-validations", Kind::kOther, true},
};

// With the status subresource enabled, at most one complaint about the root, for the first
// field (in Go's order) that is set and not allowed.
void ValidateRootForStatus(const json& schema, const std::string& path, FieldErrors& errors) {
  for (const RootField& f : kRootFields) {
    const json* value = Get(schema, f.json);
    if (value == nullptr) continue;
    if (f.kind == Kind::kString && value->is_string() && value->get<std::string>().empty())
      continue;
    if (f.kind == Kind::kBool && value->is_boolean() && !value->get<bool>()) continue;
    if (std::string_view(f.json) == "type") {
      const std::string type = Str(&schema, "type");
      if (type != "object") {
        errors.push_back(v::FieldInvalid(
            Child(path, "openAPIV3Schema.type"), type,
            R"(only "object" is allowed as the type at the root of the schema if the status subresource is enabled)"));
        return;
      }
      continue;
    }
    if (!f.allowed) {
      errors.push_back(InvalidVerbatim(
          Child(path, "openAPIV3Schema"), GoSchemaProps(schema),
          "only " + std::string(kAllowedAtRoot) +
              " fields are allowed at the root of the schema if the status subresource is "
              "enabled"));
      return;
    }
  }
}

// How a part of the schema is validated (upstream's specStandardValidatorV3).
struct Context {
  bool allow_defaults = true;
  std::string disallow_defaults_reason;
  bool inside_resource_meta = false;

  Context ForbidDefaults(std::string reason) const {
    Context c = *this;
    c.allow_defaults = false;
    c.disallow_defaults_reason = std::move(reason);
    return c;
  }
  Context InsideResourceMeta() const {
    Context c = *this;
    c.inside_resource_meta = true;
    return c;
  }
};

void ValidateMapListKeysMapSet(const json& s, const std::string& path, FieldErrors& errors) {
  const json* items = Object(s, "items");
  const json* list_type = Get(s, "x-kubernetes-list-type");
  if (items == nullptr || list_type == nullptr || !list_type->is_string()) return;
  const std::string lt = list_type->get<std::string>();
  if (lt != "set" && lt != "map") return;
  const std::string items_path = Child(path, "items");
  if (Bool(items, "nullable")) {
    errors.push_back(v::FieldForbidden(Child(items_path, "nullable"),
                                       "cannot be nullable when x-kubernetes-list-type is " + lt));
  }
  if (lt != "map") return;
  const std::vector<std::string> required = Strings(items, "required");
  const json* props = Object(*items, "properties");
  for (const std::string& k : Strings(&s, "x-kubernetes-list-map-keys")) {
    const json* prop = props == nullptr ? nullptr : Object(*props, k);
    if (prop == nullptr) continue;  // reported as not being a property
    const std::string prop_path = Key(Child(items_path, "properties"), k);
    const bool is_required = std::find(required.begin(), required.end(), k) != required.end();
    if (!is_required && Get(*prop, "default") == nullptr) {
      errors.push_back(v::FieldRequired(Child(prop_path, "default"),
                                        "this property is in x-kubernetes-list-map-keys, so it "
                                        "must have a default or be a required property"));
    }
    if (Bool(prop, "nullable")) {
      errors.push_back(v::FieldForbidden(
          Child(prop_path, "nullable"),
          "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"));
    }
  }
}

class Walker {
 public:
  Walker(const Options& options, FieldErrors& errors) : options_(options), errors_(errors) {}

  void Walk(const json& s, const std::string& path, const Context& ctx, bool is_root) {
    Standard(s, path, ctx);
    if (Bool(&s, "uniqueItems")) {
      Forbid(Child(path, "uniqueItems"),
             "uniqueItems cannot be set to true since the runtime complexity becomes quadratic");
    }

    // properties are for structs, additionalProperties for maps: not both.
    const json* props = Object(s, "properties");
    if (const json* ap = Get(s, "additionalProperties")) {
      if (props != nullptr && !props->empty() && !(ap->is_boolean() && ap->get<bool>())) {
        Forbid(Child(path, "additionalProperties"),
               "additionalProperties and properties are mutual exclusive");
      }
      // Defaults are ambiguous for pruning in maps inside metadata.
      const Context sub =
          ctx.inside_resource_meta
              ? ctx.ForbidDefaults("inside additionalProperties applying to object metadata")
              : ctx;
      if (ap->is_object()) Walk(*ap, Child(path, "additionalProperties"), sub, false);
    }

    if (props != nullptr) {
      for (const auto& [k, p] : props->items()) {
        if (!p.is_object()) continue;
        Context sub = ctx;
        if ((is_root || Bool(&s, "x-kubernetes-embedded-resource")) &&
            (k == "metadata" || k == "kind" || k == "apiVersion")) {
          sub = sub.InsideResourceMeta();
          if (is_root) sub = sub.ForbidDefaults("in top-level " + k);
        }
        Walk(p, Key(Child(path, "properties"), k), sub, false);
      }
    }

    if (const json* n = Object(s, "not")) Walk(*n, Child(path, "not"), ctx, false);
    for (const char* junctor : {"allOf", "oneOf", "anyOf"}) {
      if (const json* list = Array(s, junctor)) {
        for (size_t i = 0; i < list->size(); ++i) {
          if ((*list)[i].is_object()) Walk((*list)[i], Index(Child(path, junctor), i), ctx, false);
        }
      }
    }
    if (const json* defs = Object(s, "definitions")) {
      for (const auto& [k, d] : defs->items()) {
        if (d.is_object()) Walk(d, Key(Child(path, "definitions"), k), ctx, false);
      }
    }

    if (const json* items = Get(s, "items")) {
      if (items->is_object()) {
        Walk(*items, Child(path, "items"), ctx, false);
      } else if (items->is_array()) {
        for (size_t i = 0; i < items->size(); ++i) {
          if ((*items)[i].is_object())
            Walk((*items)[i], Index(Child(path, "items"), i), ctx, false);
        }
      }
    }
    if (const json* deps = Object(s, "dependencies")) {
      for (const auto& [k, d] : deps->items()) {
        if (d.is_object()) Walk(d, Key(Child(path, "dependencies"), k), ctx, false);
      }
    }

    Extensions(s, path);

    ValidateRuleShapes(s, path, errors_);
  }

 private:
  void Forbid(std::string path, std::string detail) {
    errors_.push_back(v::FieldForbidden(std::move(path), std::move(detail)));
  }

  // The OpenAPI features CRD schemas do not support.
  void Standard(const json& s, const std::string& path, const Context& ctx) {
    const std::string type = Str(&s, "type");
    if (options_.require_valid_property_type && !type.empty() && !IsOpenAPIType(type)) {
      errors_.push_back(
          v::FieldNotSupported(Child(path, "type"), type,
                               {"array", "boolean", "integer", "number", "object", "string"}));
    }
    if (Get(s, "default") != nullptr && !ctx.allow_defaults) {
      std::string detail = "must not be set";
      if (!ctx.disallow_defaults_reason.empty()) detail += " " + ctx.disallow_defaults_reason;
      Forbid(Child(path, "default"), detail);
    }
    if (!Str(&s, "id").empty()) Forbid(Child(path, "id"), "id is not supported");
    if (Get(s, "additionalItems") != nullptr) {
      Forbid(Child(path, "additionalItems"), "additionalItems is not supported");
    }
    if (NonEmpty(&s, "patternProperties")) {
      Forbid(Child(path, "patternProperties"), "patternProperties is not supported");
    }
    if (NonEmpty(&s, "definitions")) {
      Forbid(Child(path, "definitions"), "definitions is not supported");
    }
    if (Get(s, "dependencies") != nullptr) {
      Forbid(Child(path, "dependencies"), "dependencies is not supported");
    }
    if (Get(s, "$ref") != nullptr) Forbid(Child(path, "$ref"), "$ref is not supported");
    if (type == "null") {
      Forbid(Child(path, "type"), "type cannot be set to null, use nullable as an alternative");
    }
    if (const json* items = Get(s, "items");
        items != nullptr && items->is_array() && !items->empty()) {
      Forbid(Child(path, "items"), "items must be a schema object and not an array");
    }
    if (ctx.inside_resource_meta && Bool(&s, "x-kubernetes-embedded-resource")) {
      Forbid(Child(path, "x-kubernetes-embedded-resource"),
             "must not be used inside of resource meta");
    }
  }

  // x-kubernetes-preserve-unknown-fields, -map-type, -list-type and -list-map-keys.
  void Extensions(const json& s, const std::string& path) {
    const std::string type = Str(&s, "type");
    if (const json* p = Get(s, "x-kubernetes-preserve-unknown-fields");
        p != nullptr && p->is_boolean() && !p->get<bool>()) {
      errors_.push_back(InvalidVerbatim(Child(path, "x-kubernetes-preserve-unknown-fields"),
                                        "false", "must be true or undefined"));
    }

    if (const json* map_type = Get(s, "x-kubernetes-map-type")) {
      static constexpr char kDetail[] = "must be object if x-kubernetes-map-type is specified";
      if (type != "object") {
        if (type.empty()) {
          errors_.push_back(v::FieldRequired(Child(path, "type"), kDetail));
        } else {
          errors_.push_back(v::FieldInvalid(Child(path, "type"), type, kDetail));
        }
      }
      const std::string mt = map_type->is_string() ? map_type->get<std::string>() : "";
      if (mt != "atomic" && mt != "granular") {
        errors_.push_back(
            v::FieldNotSupported(Child(path, "x-kubernetes-map-type"), mt, {"atomic", "granular"}));
      }
    }

    const json* list_type_value = Get(s, "x-kubernetes-list-type");
    const std::string lt = list_type_value != nullptr && list_type_value->is_string()
                               ? list_type_value->get<std::string>()
                               : "";
    const json* items = Object(s, "items");
    if (list_type_value != nullptr && type != "array") {
      static constexpr char kDetail[] = "must be array if x-kubernetes-list-type is specified";
      if (type.empty()) {
        errors_.push_back(v::FieldRequired(Child(path, "type"), kDetail));
      } else {
        errors_.push_back(v::FieldInvalid(Child(path, "type"), type, kDetail));
      }
    } else if (options_.require_atomic_set_type && list_type_value != nullptr && lt == "set" &&
               items != nullptr) {
      static constexpr char kDetail[] =
          "must be atomic as item of a list with x-kubernetes-list-type=set";
      const std::string item_type = Str(items, "type");
      const json* item_list_type = Get(*items, "x-kubernetes-list-type");
      if (item_type == "array") {
        if (item_list_type != nullptr &&
            !(item_list_type->is_string() && item_list_type->get<std::string>() == "atomic")) {
          errors_.push_back(InvalidJSON(Child(Child(path, "items"), "x-kubernetes-list-type"),
                                        *item_list_type, kDetail));
        }
      } else if (item_type == "object") {
        const json* item_map_type = Get(*items, "x-kubernetes-map-type");
        if (item_map_type == nullptr ||
            !(item_map_type->is_string() && item_map_type->get<std::string>() == "atomic")) {
          // (upstream shows the item's list type here)
          const std::string field = Child(Child(path, "items"), "x-kubernetes-map-type");
          errors_.push_back(item_list_type == nullptr
                                ? InvalidVerbatim(field, "null", kDetail)
                                : InvalidJSON(field, *item_list_type, kDetail));
        }
      }
    }
    if (list_type_value != nullptr && lt != "atomic" && lt != "set" && lt != "map") {
      errors_.push_back(v::FieldNotSupported(Child(path, "x-kubernetes-list-type"), lt,
                                             {"atomic", "set", "map"}));
    }

    const std::vector<std::string> keys = Strings(&s, "x-kubernetes-list-map-keys");
    if (!keys.empty()) {
      static constexpr char kDetail[] = "must be map if x-kubernetes-list-map-keys is non-empty";
      if (list_type_value == nullptr) {
        errors_.push_back(v::FieldRequired(Child(path, "x-kubernetes-list-type"), kDetail));
      } else if (lt != "map") {
        errors_.push_back(v::FieldInvalid(Child(path, "x-kubernetes-list-type"), lt, kDetail));
      }
    }

    if (list_type_value != nullptr && lt == "map") {
      const json* items_value = Get(s, "items");
      if (keys.empty()) {
        errors_.push_back(v::FieldRequired(Child(path, "x-kubernetes-list-map-keys"),
                                           "must not be empty if x-kubernetes-list-type is map"));
      }
      if (items_value == nullptr) {
        errors_.push_back(v::FieldRequired(Child(path, "items"),
                                           "must have a schema if x-kubernetes-list-type is map"));
      } else if (!items_value->is_object()) {
        errors_.push_back(InvalidVerbatim(Child(path, "items"), GoSchemaPropsOrArray(*items_value),
                                          "must only have a single schema if "
                                          "x-kubernetes-list-type is map"));
      } else if (Str(items, "type") != "object") {
        errors_.push_back(v::FieldInvalid(Child(Child(path, "items"), "type"), Str(items, "type"),
                                          "must be object if parent array's "
                                          "x-kubernetes-list-type is map"));
      } else {
        const json* props = Object(*items, "properties");
        const std::string keys_value = v::GoStringSlice(keys);
        std::set<std::string> seen;
        for (const std::string& k : keys) {
          const json* prop = props == nullptr ? nullptr : Object(*props, k);
          if (prop != nullptr) {
            const std::string prop_type = Str(prop, "type");
            if (prop_type == "array" || prop_type == "object") {
              // (upstream shows the item's type here)
              errors_.push_back(v::FieldInvalid(
                  Child(Key(Child(Child(path, "items"), "properties"), k), "type"), "object",
                  "must be a scalar type if parent array's x-kubernetes-list-type is map"));
            }
          } else {
            errors_.push_back(InvalidVerbatim(Child(path, "x-kubernetes-list-map-keys"), keys_value,
                                              "entries must all be names of item properties"));
          }
          if (!seen.insert(k).second) {
            errors_.push_back(InvalidVerbatim(Child(path, "x-kubernetes-list-map-keys"), keys_value,
                                              "must not contain duplicate entries"));
          }
        }
      }
    }

    if (options_.require_map_list_keys_map_set_validation) {
      ValidateMapListKeysMapSet(s, path, errors_);
    }
  }

  const Options& options_;
  FieldErrors& errors_;
};

}  // namespace

bool SchemaHas(const json* s, const std::function<bool(const json&)>& pred) {
  if (s == nullptr || !s->is_object()) return false;
  if (pred(*s)) return true;
  auto has = [&](const json* x) { return x != nullptr && x->is_object() && SchemaHas(x, pred); };
  if (const json* items = Get(*s, "items")) {
    if (has(items)) return true;
    if (items->is_array()) {
      for (const json& e : *items) {
        if (has(&e)) return true;
      }
    }
  }
  for (const char* junctor : {"allOf", "anyOf", "oneOf"}) {
    if (const json* list = Array(*s, junctor)) {
      for (const json& e : *list) {
        if (has(&e)) return true;
      }
    }
  }
  if (has(Get(*s, "not"))) return true;
  for (const char* map : {"properties", "patternProperties", "definitions", "dependencies"}) {
    if (const json* m = Object(*s, map)) {
      for (const auto& [k, e] : m->items()) {
        if (has(&e)) return true;
      }
    }
  }
  return has(Get(*s, "additionalProperties")) || has(Get(*s, "additionalItems"));
}

bool AnyRootSchema(const Crd& crd, const std::function<bool(const json&)>& pred) {
  if (crd.has_validation && crd.validation_schema != nullptr && pred(*crd.validation_schema)) {
    return true;
  }
  for (const Version& ver : crd.versions) {
    if (ver.has_schema && ver.schema != nullptr && pred(*ver.schema)) return true;
  }
  return false;
}

bool HasDefault(const json& schema) {
  return SchemaHas(&schema, [](const json& s) { return Get(s, "default") != nullptr; });
}

bool HasKubernetesExtensions(const json& schema) {
  return SchemaHas(&schema, [](const json& s) {
    return Bool(&s, "x-kubernetes-embedded-resource") ||
           Get(s, "x-kubernetes-preserve-unknown-fields") != nullptr ||
           Bool(&s, "x-kubernetes-int-or-string") || NonEmpty(&s, "x-kubernetes-list-map-keys") ||
           Get(s, "x-kubernetes-list-type") != nullptr || NonEmpty(&s, "x-kubernetes-validations");
  });
}

bool HasInvalidType(const json& schema) {
  return SchemaHas(&schema, [](const json& s) {
    const std::string type = Str(&s, "type");
    return !type.empty() && !IsOpenAPIType(type);
  });
}

bool HasNonAtomicSetType(const json& schema) {
  return SchemaHas(&schema, [](const json& s) {
    const json* items = Object(s, "items");
    if (Str(&s, "x-kubernetes-list-type") != "set" || items == nullptr) return false;
    const std::string type = Str(items, "type");
    if (type == "array") {
      const json* lt = Get(*items, "x-kubernetes-list-type");
      return lt != nullptr && !(lt->is_string() && lt->get<std::string>() == "atomic");
    }
    if (type == "object") return Str(items, "x-kubernetes-map-type") != "atomic";
    return false;
  });
}

bool HasInvalidMapListKeysMapSet(const json& schema) {
  return SchemaHas(&schema, [](const json& s) {
    FieldErrors errs;
    ValidateMapListKeysMapSet(s, "", errs);
    return !errs.empty();
  });
}

void ValidateCustomResourceValidation(bool has_validation, const json* schema, bool status_enabled,
                                      const Options& options, const std::string& path,
                                      FieldErrors& out) {
  if (!has_validation || schema == nullptr) return;
  FieldErrors errors;
  const std::string schema_path = Child(path, "openAPIV3Schema");
  if (status_enabled) ValidateRootForStatus(*schema, path, errors);
  if (Bool(schema, "nullable")) {
    errors.push_back(v::FieldForbidden(Child(path, "openAPIV3Schema.nullable"),
                                       "nullable cannot be true at the root"));
  }

  bool rules_may_compile = false;
  FieldErrors conversion_errors;  // shown only when nothing else is wrong
  if (options.require_structural_schema) {
    if (auto err = StructuralConversionError(*schema)) {
      conversion_errors.push_back(v::FieldInvalid(schema_path, "", *err));
    } else if (FieldErrors errs = ValidateStructural(*schema, schema_path); !errs.empty()) {
      for (FieldError& e : errs) errors.push_back(std::move(e));
    } else if (FieldErrors errs =
                   ValidateDefaults(*schema, schema_path, options.require_pruned_defaults);
               !errs.empty()) {
      for (FieldError& e : errs) errors.push_back(std::move(e));
    } else {
      rules_may_compile = true;
    }
  }

  FieldErrors schema_errors;
  Walker walker(options, schema_errors);
  Context root;
  root.allow_defaults = options.allow_defaults;
  walker.Walk(*schema, schema_path, root, true);
  const bool schema_ok = schema_errors.empty();
  for (FieldError& e : schema_errors) errors.push_back(std::move(e));
  // Upstream compiles the rules of a part of the schema only when that part has no other
  // errors; here the rules are compiled together, when the whole schema has none.
  if (rules_may_compile && schema_ok) {
    CompileRules(*schema, schema_path, options.suppress_per_expression_cost, errors);
  }

  if (errors.empty()) errors = std::move(conversion_errors);
  for (FieldError& e : errors) out.push_back(std::move(e));
}

}  // namespace apiextensions::validation::internal
