// Structural schemas (upstream's pkg/apiserver/schema): what NewStructural refuses to convert,
// and ValidateStructural's invariants (every field typed, value validations inside allOf /
// anyOf / oneOf / not only restating what the structure specifies, metadata at the root
// limited to name and generateName, the x-kubernetes-* extensions in their places) and
// completeness (what value validations name exists in the structure).

#include <algorithm>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/internal.h"
#include "pkg/genericserver/apimachinery/regex/regex.h"

namespace apiextensions::validation::internal {

namespace v = apimachinery::validation;
using nlohmann::json;

namespace {

enum class Level { kRoot, kItem, kField };

const json* Object(const json& s, std::string_view key) {
  const json* x = Get(s, key);
  return x != nullptr && x->is_object() ? x : nullptr;
}

const json* Array(const json& s, std::string_view key) {
  const json* x = Get(s, key);
  return x != nullptr && x->is_array() ? x : nullptr;
}

// Properties, as the structural schema keeps them (an empty map is none).
const json* Properties(const json& s) {
  const json* p = Object(s, "properties");
  return p != nullptr && !p->empty() ? p : nullptr;
}

// ---- NewStructural --------------------------------------------------------------------

std::optional<std::string> ConversionError(const json& s) {
  if (!Str(&s, "id").empty()) return "OpenAPIV3Schema 'id' is not supported";
  if (!Str(&s, "$schema").empty()) return "OpenAPIV3Schema 'schema' is not supported";
  if (!Str(&s, "$ref").empty()) return "OpenAPIV3Schema '$ref' is not supported";
  if (NonEmpty(&s, "patternProperties"))
    return "OpenAPIV3Schema 'patternProperties' is not supported";
  if (NonEmpty(&s, "dependencies")) return "OpenAPIV3Schema 'dependencies' is not supported";
  if (Get(s, "additionalItems") != nullptr) {
    return "OpenAPIV3Schema 'additionalItems' is not supported";
  }
  if (NonEmpty(&s, "definitions")) return "OpenAPIV3Schema 'definitions' is not supported";
  if (const json* n = Object(s, "not")) {
    if (auto e = ConversionError(*n)) return e;
  }
  for (const char* junctor : {"allOf", "anyOf", "oneOf"}) {
    if (const json* list = Array(s, junctor)) {
      for (const json& x : *list) {
        if (!x.is_object()) continue;
        if (auto e = ConversionError(x)) return e;
      }
    }
  }
  if (const json* ap = Object(s, "additionalProperties")) {
    if (auto e = ConversionError(*ap)) return e;
  }
  if (const json* p = Get(s, "x-kubernetes-preserve-unknown-fields");
      p != nullptr && p->is_boolean() && !p->get<bool>()) {
    return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  }
  if (const json* items = Get(s, "items")) {
    if (items->is_array() && !items->empty()) {
      return "OpenAPIV3Schema 'items' must be a schema, but is an array";
    }
    if (items->is_object()) {
      if (auto e = ConversionError(*items)) return e;
    }
  }
  if (const json* props = Object(s, "properties")) {
    for (const auto& [k, x] : props->items()) {
      if (!x.is_object()) continue;
      if (auto e = ConversionError(x)) return e;
    }
  }
  return std::nullopt;
}

// ---- ValidateStructural ----------------------------------------------------------------

class Validator {
 public:
  explicit Validator(FieldErrors& errors) : errors_(errors) {}

  void Invariants(const json& s, Level lvl, const std::string& path) {
    const std::string type = Str(&s, "type");
    const json* items = Object(s, "items");
    if (type == "array" && items == nullptr) {
      errors_.push_back(v::FieldRequired(Child(path, "items"), "must be specified"));
    }
    if (items != nullptr) Invariants(*items, Level::kItem, Child(path, "items"));
    const json* props = Properties(s);
    if (props != nullptr) {
      for (const auto& [k, p] : props->items()) {
        if (p.is_object()) Invariants(p, Level::kField, Key(Child(path, "properties"), k));
      }
    }
    const json* ap = Get(s, "additionalProperties");
    if (ap != nullptr) {
      if (lvl == Level::kRoot) {
        errors_.push_back(
            v::FieldForbidden(Child(path, "additionalProperties"), "must not be used at the root"));
      }
      if (ap->is_object()) Invariants(*ap, Level::kField, Child(path, "additionalProperties"));
    }

    const bool int_or_string = Bool(&s, "x-kubernetes-int-or-string");
    const bool preserve = Bool(&s, "x-kubernetes-preserve-unknown-fields");
    const bool embedded = Bool(&s, "x-kubernetes-embedded-resource");
    if (int_or_string && preserve) {
      errors_.push_back(InvalidVerbatim(Child(path, "x-kubernetes-preserve-unknown-fields"), "true",
                                        "must be false if x-kubernetes-int-or-string is true"));
    }
    if (int_or_string && embedded) {
      errors_.push_back(InvalidVerbatim(Child(path, "x-kubernetes-embedded-resource"), "true",
                                        "must be false if x-kubernetes-int-or-string is true"));
    }

    ValueValidation(s, IsIntOrStringAnyOf(s), IsIntOrStringAllOf(s), lvl, path);

    const bool check_metadata = lvl == Level::kRoot || embedded;
    if (embedded && type != "object") {
      static constexpr char kDetail[] = "must be object if x-kubernetes-embedded-resource is true";
      if (type.empty()) {
        errors_.push_back(v::FieldRequired(Child(path, "type"), kDetail));
      } else {
        errors_.push_back(v::FieldInvalid(Child(path, "type"), type, kDetail));
      }
    } else if (type.empty() && !int_or_string && !preserve) {
      switch (lvl) {
        case Level::kRoot:
          errors_.push_back(v::FieldRequired(Child(path, "type"), "must not be empty at the root"));
          break;
        case Level::kItem:
          errors_.push_back(
              v::FieldRequired(Child(path, "type"), "must not be empty for specified array items"));
          break;
        case Level::kField:
          errors_.push_back(v::FieldRequired(Child(path, "type"),
                                             "must not be empty for specified object fields"));
          break;
      }
    }
    if (embedded && ap != nullptr) {
      errors_.push_back(
          v::FieldForbidden(Child(path, "additionalProperties"),
                            "must not be used if x-kubernetes-embedded-resource is set"));
    }
    if (lvl == Level::kRoot && !type.empty() && type != "object") {
      errors_.push_back(v::FieldInvalid(Child(path, "type"), type, "must be object at the root"));
    }
    for (const char* meta : {"kind", "apiVersion"}) {
      const json* p = props == nullptr ? nullptr : Object(*props, meta);
      if (p != nullptr && check_metadata && Str(p, "type") != "string") {
        errors_.push_back(v::FieldInvalid(Child(Key(Child(path, "properties"), meta), "type"),
                                          Str(p, "type"), "must be string"));
      }
    }
    if (const json* metadata = props == nullptr ? nullptr : Object(*props, "metadata")) {
      MetadataInvariants(*metadata, check_metadata, lvl,
                         Key(Child(path, "properties"), "metadata"));
    }
    if (embedded && !preserve && props == nullptr) {
      errors_.push_back(
          v::FieldRequired(Child(path, "properties"),
                           "must not be empty if x-kubernetes-embedded-resource is true without "
                           "x-kubernetes-preserve-unknown-fields"));
    }
  }

  // Every property or items a value validation names is specified by the structure (upstream
  // checks the junctors of the root schema).
  void Completeness(const json& s, const std::string& path) {
    ValueValidationCompleteness(s, &s, path, path);
  }

 private:
  // anyOf: [{type: integer}, {type: string}] and nothing else in either.
  static bool IsIntOrStringPair(const json* any_of) {
    if (any_of == nullptr || !any_of->is_array() || any_of->size() != 2) return false;
    const char* types[] = {"integer", "string"};
    for (size_t i = 0; i < 2; ++i) {
      const json& x = (*any_of)[i];
      if (!x.is_object() || Str(&x, "type") != types[i]) return false;
      for (const auto& [k, e] : x.items()) {
        if (k == "type" || e.is_null()) continue;
        if (e.is_boolean() && !e.get<bool>()) continue;
        if (e.is_string() && e.get<std::string>().empty()) continue;
        return false;
      }
    }
    return true;
  }

  static bool IsIntOrStringAnyOf(const json& s) { return IsIntOrStringPair(Array(s, "anyOf")); }

  static bool IsIntOrStringAllOf(const json& s) {
    const json* all_of = Array(s, "allOf");
    if (all_of == nullptr || all_of->empty() || !(*all_of)[0].is_object()) return false;
    return IsIntOrStringPair(Array((*all_of)[0], "anyOf"));
  }

  void ValueValidation(const json& s, bool skip_any_of, bool skip_first_all_of_any_of, Level lvl,
                       const std::string& path) {
    if (!skip_any_of) {
      if (const json* list = Array(s, "anyOf")) {
        for (size_t i = 0; i < list->size(); ++i) {
          if ((*list)[i].is_object()) {
            Nested((*list)[i], false, false, lvl, Index(Child(path, "anyOf"), i));
          }
        }
      }
    }
    if (const json* list = Array(s, "allOf")) {
      for (size_t i = 0; i < list->size(); ++i) {
        if ((*list)[i].is_object()) {
          Nested((*list)[i], skip_first_all_of_any_of && i == 0, false, lvl,
                 Index(Child(path, "allOf"), i));
        }
      }
    }
    if (const json* list = Array(s, "oneOf")) {
      for (size_t i = 0; i < list->size(); ++i) {
        if ((*list)[i].is_object()) {
          Nested((*list)[i], false, false, lvl, Index(Child(path, "oneOf"), i));
        }
      }
    }
    if (const json* n = Object(s, "not")) Nested(*n, false, false, lvl, Child(path, "not"));
    const std::string pattern = Str(&s, "pattern");
    if (!pattern.empty()) {
      if (auto re = apimachinery::regex::Regex::CompileCached(pattern); !re) {
        errors_.push_back(
            v::FieldInvalid(Child(path, "pattern"), pattern,
                            "must be a valid regular expression, but isn't: " + re.error()));
      }
    }
  }

  void Nested(const json& s, bool skip_any_of, bool skip_all_of_any_of, Level lvl,
              const std::string& path) {
    ValueValidation(s, skip_any_of, skip_all_of_any_of, lvl, path);
    if (const json* items = Object(s, "items")) {
      Nested(*items, false, false, lvl, Child(path, "items"));
    }
    const json* props = Object(s, "properties");
    if (props != nullptr) {
      for (const auto& [k, p] : props->items()) {
        if (p.is_object())
          Nested(p, false, false, Level::kField, Key(Child(path, "properties"), k));
      }
    }
    auto forbid = [&](const char* field, const char* detail) {
      errors_.push_back(v::FieldForbidden(Child(path, field), detail));
    };
    if (!Str(&s, "type").empty()) forbid("type", "must be empty to be structural");
    if (Get(s, "additionalProperties") != nullptr) {
      forbid("additionalProperties", "must be undefined to be structural");
    }
    if (Get(s, "default") != nullptr) forbid("default", "must be undefined to be structural");
    if (!Str(&s, "title").empty()) forbid("title", "must be empty to be structural");
    if (!Str(&s, "description").empty()) forbid("description", "must be empty to be structural");
    if (Bool(&s, "nullable")) forbid("nullable", "must be false to be structural");
    if (Bool(&s, "x-kubernetes-preserve-unknown-fields")) {
      forbid("x-kubernetes-preserve-unknown-fields", "must be false to be structural");
    }
    if (Bool(&s, "x-kubernetes-embedded-resource")) {
      forbid("x-kubernetes-embedded-resource", "must be false to be structural");
    }
    if (Bool(&s, "x-kubernetes-int-or-string")) {
      forbid("x-kubernetes-int-or-string", "must be false to be structural");
    }
    if (NonEmpty(&s, "x-kubernetes-list-map-keys")) {
      forbid("x-kubernetes-list-map-keys", "must be empty to be structural");
    }
    if (Get(s, "x-kubernetes-list-type") != nullptr) {
      forbid("x-kubernetes-list-type", "must be undefined to be structural");
    }
    if (Get(s, "x-kubernetes-map-type") != nullptr) {
      forbid("x-kubernetes-map-type", "must be undefined to be structural");
    }
    if (NonEmpty(&s, "x-kubernetes-validations")) {
      forbid("x-kubernetes-validations", "must be empty to be structural");
    }
    if (props != nullptr && props->contains("metadata")) {
      errors_.push_back(v::FieldForbidden(Key(Child(path, "properties"), "metadata"),
                                          "must not be specified in a nested context"));
    }
  }

  // Whether a metadata schema at the root says more than the name and generateName fields
  // (compared as upstream compares the structural schema, with type and default removed).
  static bool MetadataSaysMore(const json& m) {
    if (const json* props = Properties(m)) {
      const bool name = props->contains("name");
      const bool generate_name = props->contains("generateName");
      const bool only_names = (name && generate_name && props->size() == 2) ||
                              ((name || generate_name) && props->size() == 1);
      if (!only_names) return true;
    }
    for (const char* k : {"description", "title", "format", "pattern"}) {
      if (!Str(&m, k).empty()) return true;
    }
    for (const char* k :
         {"nullable", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
          "x-kubernetes-int-or-string", "exclusiveMaximum", "exclusiveMinimum", "uniqueItems"}) {
      if (Bool(&m, k)) return true;
    }
    // Pointers and copied slices: set means specified, even when empty.
    for (const char* k :
         {"additionalProperties", "x-kubernetes-list-map-keys", "x-kubernetes-list-type",
          "x-kubernetes-map-type", "x-kubernetes-validations", "maximum", "minimum", "maxLength",
          "minLength", "maxItems", "minItems", "multipleOf", "maxProperties", "minProperties",
          "required", "not"}) {
      if (Get(m, k) != nullptr) return true;
    }
    if (Object(m, "items") != nullptr) return true;
    for (const char* k : {"enum", "allOf", "anyOf", "oneOf"}) {
      if (NonEmpty(&m, k)) return true;
    }
    return false;
  }

  void MetadataInvariants(const json& m, bool check_metadata, Level lvl, const std::string& path) {
    const std::string type = Str(&m, "type");
    if (check_metadata && type != "object") {
      errors_.push_back(v::FieldInvalid(Child(path, "type"), type, "must be object"));
    }
    if (lvl == Level::kRoot && MetadataSaysMore(m)) {
      errors_.push_back(v::FieldForbidden(
          path,
          "must not specify anything other than name and generateName, but metadata is "
          "implicitly specified"));
    }
  }

  void ValueValidationCompleteness(const json& v, const json* s, const std::string& s_path,
                                   const std::string& v_path) {
    if (const json* n = Object(v, "not")) {
      NestedCompleteness(*n, s, s_path, Child(v_path, "not"));
    }
    for (const char* junctor : {"allOf", "anyOf", "oneOf"}) {
      if (const json* list = Array(v, junctor)) {
        for (size_t i = 0; i < list->size(); ++i) {
          if ((*list)[i].is_object()) {
            NestedCompleteness((*list)[i], s, s_path, Index(Child(v_path, junctor), i));
          }
        }
      }
    }
  }

  void NestedCompleteness(const json& v, const json* s, const std::string& s_path,
                          const std::string& v_path) {
    if (s == nullptr) {
      errors_.push_back(v::FieldRequired(s_path, "because it is defined in " + v_path));
      return;
    }
    ValueValidationCompleteness(v, s, s_path, v_path);
    if (const json* items = Object(v, "items")) {
      NestedCompleteness(*items, Object(*s, "items"), Child(s_path, "items"),
                         Child(v_path, "items"));
    }
    if (const json* props = Object(v, "properties")) {
      const json* s_props = Properties(*s);
      for (const auto& [k, p] : props->items()) {
        if (!p.is_object()) continue;
        const json* s_prop = s_props == nullptr ? nullptr : Object(*s_props, k);
        const std::string sp = Key(Child(s_path, "properties"), k);
        const std::string vp = Key(Child(v_path, "properties"), k);
        if (s_prop == nullptr) {
          errors_.push_back(v::FieldRequired(sp, "because it is defined in " + vp));
        } else {
          NestedCompleteness(p, s_prop, sp, vp);
        }
      }
    }
  }

  FieldErrors& errors_;
};

}  // namespace

std::optional<std::string> StructuralConversionError(const json& schema) {
  if (!schema.is_object()) return std::nullopt;
  return ConversionError(schema);
}

FieldErrors ValidateStructural(const json& schema, const std::string& path) {
  FieldErrors errors;
  Validator validator(errors);
  validator.Invariants(schema, Level::kRoot, path);
  validator.Completeness(schema, path);
  // Upstream sorts by the rendered message, its maps being ranged in random order.
  std::sort(errors.begin(), errors.end(), [](const FieldError& a, const FieldError& b) {
    return v::ErrorString(a) < v::ErrorString(b);
  });
  return errors;
}

bool IsStructural(const json& schema) {
  return !StructuralConversionError(schema) && ValidateStructural(schema, "").empty();
}

}  // namespace apiextensions::validation::internal
