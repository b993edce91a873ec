#include "pkg/apiextensions/schema/object_meta.h"

#include <algorithm>
#include <charconv>
#include <map>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/schema/schema_node.h"
#include "pkg/apiextensions/schema/values.h"
#include "pkg/genericserver/apimachinery/schema/go_values.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/apimachinery/validation/names.h"

namespace apiextensions::schema {

namespace {

using nlohmann::json;
namespace v = apimachinery::validation;
namespace ms = apimachinery::schema;

// ---------------------------------------------------------------------------------------------
// Decoding as encoding/json does (errors) and writing back as the typed encoding does.

enum class FieldKind {
  kString,
  kInt64,
  kTime,
  kStringMap,
  kStringList,
  kOwnerReferences,
  kManagedFields,
  kBool,
  kRaw
};

struct FieldSpec {
  FieldKind kind;
  std::string_view go_type;  // for messages
  bool omitempty = true;
  bool pointer = false;  // *T: null omitted, zero kept
};

const std::map<std::string, FieldSpec, std::less<>>& ObjectMetaFields() {
  static const std::map<std::string, FieldSpec, std::less<>> kFields = {
      {"name", {FieldKind::kString, "string"}},
      {"generateName", {FieldKind::kString, "string"}},
      {"namespace", {FieldKind::kString, "string"}},
      {"selfLink", {FieldKind::kString, "string"}},
      {"uid", {FieldKind::kString, "types.UID"}},
      {"resourceVersion", {FieldKind::kString, "string"}},
      {"generation", {FieldKind::kInt64, "int64"}},
      {"creationTimestamp", {FieldKind::kTime, "v1.Time"}},
      {"deletionTimestamp", {FieldKind::kTime, "v1.Time", true, true}},
      {"deletionGracePeriodSeconds", {FieldKind::kInt64, "int64", true, true}},
      {"labels", {FieldKind::kStringMap, "map[string]string"}},
      {"annotations", {FieldKind::kStringMap, "map[string]string"}},
      {"ownerReferences", {FieldKind::kOwnerReferences, "[]v1.OwnerReference"}},
      {"finalizers", {FieldKind::kStringList, "[]string"}},
      {"managedFields", {FieldKind::kManagedFields, "[]v1.ManagedFieldsEntry"}},
  };
  return kFields;
}

const std::map<std::string, FieldSpec, std::less<>>& OwnerReferenceFields() {
  static const std::map<std::string, FieldSpec, std::less<>> kFields = {
      {"apiVersion", {FieldKind::kString, "string", false}},
      {"kind", {FieldKind::kString, "string", false}},
      {"name", {FieldKind::kString, "string", false}},
      {"uid", {FieldKind::kString, "types.UID", false}},
      {"controller", {FieldKind::kBool, "bool", true, true}},
      {"blockOwnerDeletion", {FieldKind::kBool, "bool", true, true}},
  };
  return kFields;
}

const std::map<std::string, FieldSpec, std::less<>>& ManagedFieldsEntryFields() {
  static const std::map<std::string, FieldSpec, std::less<>> kFields = {
      {"manager", {FieldKind::kString, "string"}},
      {"operation", {FieldKind::kString, "v1.ManagedFieldsOperationType"}},
      {"apiVersion", {FieldKind::kString, "string"}},
      {"time", {FieldKind::kTime, "v1.Time", true, true}},
      {"fieldsType", {FieldKind::kString, "string"}},
      {"fieldsV1", {FieldKind::kRaw, "v1.FieldsV1", true, true}},
      {"subresource", {FieldKind::kString, "string"}},
  };
  return kFields;
}

// The JSON value kind encoding/json names in UnmarshalTypeError.
std::string JSONKind(const json& value) {
  switch (KindOf(value)) {
    case GoKind::kString:
      return "string";
    case GoKind::kBool:
      return "bool";
    case GoKind::kInt64:
    case GoKind::kFloat64:
      return "number";
    case GoKind::kSlice:
      return "array";
    case GoKind::kMap:
      return "object";
    case GoKind::kNull:
      return "null";
  }
  return "null";
}

// Where a field sits, for UnmarshalTypeError's "Go struct field <Struct>.<Field>".
struct Context {
  std::string_view go_struct;
  std::string field;  // the dotted path of JSON names from ObjectMeta
};

std::string TypeError(const std::string& value, std::string_view type, const Context& ctx) {
  return "json: cannot unmarshal " + value + " into Go struct field " + std::string(ctx.go_struct) +
         "." + ctx.field + " of type " + std::string(type);
}

// The int64 an unstructured number decodes to after upstream re-marshals it, or the literal
// Go would fail on.
std::optional<int64_t> DecodedInt(const json& value, std::string& literal) {
  if (KindOf(value) == GoKind::kInt64) return AsInt64(value);
  literal = GoJSONFloat(AsFloat64(value));
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(literal.data(), literal.data() + literal.size(), out);
  if (ec == std::errc() && ptr == literal.data() + literal.size()) return out;
  return std::nullopt;
}

std::optional<std::string> TimeError(const json& value) {
  if (value.is_null()) return std::nullopt;
  if (!value.is_string()) {
    return "json: cannot unmarshal " + JSONKind(value) + " into Go value of type string";
  }
  return ms::GoTimeParseError(ms::kRFC3339, value.get<std::string>());
}

std::optional<std::string> FieldError(const json& value, const FieldSpec& spec, Context ctx);

std::optional<std::string> StructError(const json& value,
                                       const std::map<std::string, FieldSpec, std::less<>>& fields,
                                       std::string_view go_struct, const std::string& prefix) {
  if (value.is_null()) return std::nullopt;
  for (auto it = value.begin(); it != value.end(); ++it) {
    auto spec = fields.find(it.key());
    if (spec == fields.end()) continue;
    Context ctx{go_struct, prefix.empty() ? it.key() : prefix + "." + it.key()};
    if (auto e = FieldError(it.value(), spec->second, ctx)) return e;
  }
  return std::nullopt;
}

std::optional<std::string> FieldError(const json& value, const FieldSpec& spec, Context ctx) {
  if (value.is_null()) return std::nullopt;
  switch (spec.kind) {
    case FieldKind::kString:
      if (value.is_string()) return std::nullopt;
      return TypeError(JSONKind(value), spec.go_type, ctx);
    case FieldKind::kBool:
      if (value.is_boolean()) return std::nullopt;
      return TypeError(JSONKind(value), spec.go_type, ctx);
    case FieldKind::kInt64: {
      if (!value.is_number()) return TypeError(JSONKind(value), spec.go_type, ctx);
      std::string literal;
      if (DecodedInt(value, literal)) return std::nullopt;
      return TypeError("number " + literal, spec.go_type, ctx);
    }
    case FieldKind::kTime:
      return TimeError(value);
    case FieldKind::kRaw:
      return std::nullopt;
    case FieldKind::kStringMap:
      if (!value.is_object()) return TypeError(JSONKind(value), spec.go_type, ctx);
      for (const json& item : value) {
        if (!item.is_null() && !item.is_string()) return TypeError(JSONKind(item), "string", ctx);
      }
      return std::nullopt;
    case FieldKind::kStringList:
      if (!value.is_array()) return TypeError(JSONKind(value), spec.go_type, ctx);
      for (const json& item : value) {
        if (!item.is_null() && !item.is_string()) return TypeError(JSONKind(item), "string", ctx);
      }
      return std::nullopt;
    case FieldKind::kOwnerReferences:
    case FieldKind::kManagedFields: {
      if (!value.is_array()) return TypeError(JSONKind(value), spec.go_type, ctx);
      const bool owners = spec.kind == FieldKind::kOwnerReferences;
      for (const json& item : value) {
        if (item.is_null()) continue;
        if (!item.is_object()) {
          return TypeError(JSONKind(item), owners ? "v1.OwnerReference" : "v1.ManagedFieldsEntry",
                           ctx);
        }
        auto e = StructError(item, owners ? OwnerReferenceFields() : ManagedFieldsEntryFields(),
                             owners ? "OwnerReference" : "ManagedFieldsEntry", ctx.field);
        if (e) return e;
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// The typed round trip of a valid value; nullopt when the typed encoding omits it.
std::optional<json> Normalize(const json& value, const FieldSpec& spec, const std::string& path,
                              std::vector<std::string>& unknown);

json NormalizeStruct(const json& value, const std::map<std::string, FieldSpec, std::less<>>& fields,
                     const std::string& path, std::vector<std::string>& unknown) {
  json out = json::object();
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      auto spec = fields.find(it.key());
      if (spec == fields.end()) {
        unknown.push_back(path + "." + it.key());
        continue;
      }
      if (auto n = Normalize(it.value(), spec->second, path + "." + it.key(), unknown)) {
        out[it.key()] = std::move(*n);
      }
    }
  }
  for (const auto& [name, spec] : fields) {
    if (!spec.omitempty && !out.contains(name)) out[name] = "";
  }
  return out;
}

std::optional<json> Normalize(const json& value, const FieldSpec& spec, const std::string& path,
                              std::vector<std::string>& unknown) {
  if (value.is_null()) return spec.omitempty ? std::nullopt : std::optional<json>(json(""));
  switch (spec.kind) {
    case FieldKind::kString:
      if (spec.omitempty && value.get_ref<const std::string&>().empty()) return std::nullopt;
      return value;
    case FieldKind::kBool:
      return value;
    case FieldKind::kInt64: {
      std::string literal;
      const int64_t i = DecodedInt(value, literal).value_or(0);
      if (i == 0 && !spec.pointer) return std::nullopt;
      return json(i);
    }
    case FieldKind::kTime: {
      auto canonical = ms::GoTimeCanonical(ms::kRFC3339, value.get<std::string>());
      if (!canonical || *canonical == "0001-01-01T00:00:00Z") return std::nullopt;
      return json(*canonical);
    }
    case FieldKind::kRaw:
      return value;
    case FieldKind::kStringMap: {
      if (value.empty()) return std::nullopt;
      json out = json::object();
      for (auto it = value.begin(); it != value.end(); ++it) {
        out[it.key()] = it.value().is_string() ? it.value() : json("");
      }
      return out;
    }
    case FieldKind::kStringList: {
      if (value.empty()) return std::nullopt;
      json out = json::array();
      for (const json& item : value) out.push_back(item.is_string() ? item : json(""));
      return out;
    }
    case FieldKind::kOwnerReferences:
    case FieldKind::kManagedFields: {
      if (value.empty()) return std::nullopt;
      const bool owners = spec.kind == FieldKind::kOwnerReferences;
      json out = json::array();
      for (size_t i = 0; i < value.size(); ++i) {
        out.push_back(NormalizeStruct(value[i],
                                      owners ? OwnerReferenceFields() : ManagedFieldsEntryFields(),
                                      path + "[" + std::to_string(i) + "]", unknown));
      }
      return out;
    }
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Validation (metavalidation.ValidateObjectMetaAccessor with path-segment names).

std::string Child(const std::string& path, std::string_view name) {
  return path.empty() ? std::string(name) : path + "." + std::string(name);
}

std::string StringField(const json& meta, const char* key) {
  auto it = meta.find(key);
  return it != meta.end() && it->is_string() ? it->get<std::string>() : "";
}

// path.IsValidPathSegmentName / IsValidPathSegmentPrefix.
std::vector<std::string> PathSegmentErrors(const std::string& name, bool prefix) {
  if (!prefix) {
    for (const char* bad : {".", ".."}) {
      if (name == bad) return {std::string("may not be '") + bad + "'"};
    }
  }
  std::vector<std::string> errors;
  for (const char* bad : {"/", "%"}) {
    if (name.find(bad) != std::string::npos)
      errors.push_back(std::string("may not contain '") + bad + "'");
  }
  return errors;
}

// gogo-generated OwnerReference.String(), which field.ErrorBody uses for the struct.
std::string OwnerReferenceString(const json& ref) {
  auto pointer = [&](const char* key) -> std::string {
    auto it = ref.find(key);
    if (it == ref.end() || !it->is_boolean()) return "nil";
    return it->get<bool>() ? "*true" : "*false";
  };
  return "&OwnerReference{Kind:" + StringField(ref, "kind") + ",Name:" + StringField(ref, "name") +
         ",UID:" + StringField(ref, "uid") + ",APIVersion:" + StringField(ref, "apiVersion") +
         ",Controller:" + pointer("controller") +
         ",BlockOwnerDeletion:" + pointer("blockOwnerDeletion") + ",}";
}

// %#v of the []v1.OwnerReference. Pointer fields print their address upstream, which cannot be
// reproduced; a fixed placeholder stands in.
std::string OwnerReferencesSharpV(const json& refs) {
  std::string out = "[]v1.OwnerReference{";
  bool first = true;
  for (const json& ref : refs) {
    if (!first) out += ", ";
    first = false;
    auto pointer = [&](const char* key) -> std::string {
      auto it = ref.find(key);
      if (it == ref.end() || !it->is_boolean()) return "(*bool)(nil)";
      return "(*bool)(0xc000000000)";
    };
    out += "v1.OwnerReference{APIVersion:" + v::GoQuote(StringField(ref, "apiVersion")) +
           ", Kind:" + v::GoQuote(StringField(ref, "kind")) +
           ", Name:" + v::GoQuote(StringField(ref, "name")) +
           ", UID:" + v::GoQuote(StringField(ref, "uid")) +
           ", Controller:" + pointer("controller") +
           ", BlockOwnerDeletion:" + pointer("blockOwnerDeletion") + "}";
  }
  return out + "}";
}

v::FieldError InvalidVerbatim(std::string field, std::string value, std::string detail) {
  v::FieldError e = v::FieldInvalid(std::move(field), std::move(value), std::move(detail));
  e.value_form = v::ValueForm::kVerbatim;
  return e;
}

// unicode.IsPrint, approximately (see go_format.h's GoQuote for the same approximation).
bool IsPrint(char32_t r) {
  if (r < 0x20 || (r >= 0x7F && r < 0xA0)) return false;
  if (r < 0x80) return true;
  if (r == 0xA0 || r == 0xAD || r == 0x1680 || (r >= 0x2000 && r <= 0x200F) ||
      (r >= 0x2028 && r <= 0x202F) || (r >= 0x205F && r <= 0x206F) || r == 0x3000 || r == 0xFEFF ||
      (r >= 0xFFF9 && r <= 0xFFFB) || (r >= 0xE000 && r <= 0xF8FF) || r >= 0xF0000 ||
      (r & 0xFFFE) == 0xFFFE || (r >= 0xFDD0 && r <= 0xFDEF)) {
    return false;
  }
  return true;
}

void ValidateObjectMeta(const json& meta, const std::string& path, FieldErrors& errors) {
  const std::string generate_name = StringField(meta, "generateName");
  if (!generate_name.empty()) {
    for (const std::string& msg : PathSegmentErrors(generate_name, true)) {
      errors.push_back(v::FieldInvalid(Child(path, "generateName"), generate_name, msg));
    }
  }
  std::string name = StringField(meta, "name");
  if (name.empty()) name = "fakename";  // upstream sets it "to avoid an error"
  for (const std::string& msg : PathSegmentErrors(name, false)) {
    errors.push_back(v::FieldInvalid(Child(path, "name"), name, msg));
  }
  const std::string ns = StringField(meta, "namespace");
  if (!ns.empty()) {
    for (const std::string& msg : v::IsDNS1123Label(ns)) {
      errors.push_back(v::FieldInvalid(Child(path, "namespace"), ns, msg));
    }
  }
  if (auto it = meta.find("generation"); it != meta.end() && it->is_number()) {
    std::string literal;
    const int64_t generation = DecodedInt(*it, literal).value_or(0);
    if (generation < 0) {
      errors.push_back(InvalidVerbatim(Child(path, "generation"), std::to_string(generation),
                                       "must be greater than or equal to 0"));
    }
  }
  auto string_map = [&](const char* key) {
    std::map<std::string, std::string> out;
    if (auto it = meta.find(key); it != meta.end() && it->is_object()) {
      for (auto kv = it->begin(); kv != it->end(); ++kv) {
        out[kv.key()] = kv.value().is_string() ? kv.value().get<std::string>() : "";
      }
    }
    return out;
  };
  for (v::FieldError& e : v::ValidateLabels(string_map("labels"), Child(path, "labels"))) {
    errors.push_back(std::move(e));
  }
  for (v::FieldError& e :
       v::ValidateAnnotations(string_map("annotations"), Child(path, "annotations"))) {
    errors.push_back(std::move(e));
  }

  // Owner references: the list path, not the item's, as upstream.
  const std::string owners_path = Child(path, "ownerReferences");
  if (auto refs = meta.find("ownerReferences"); refs != meta.end() && refs->is_array()) {
    std::string first_controller;
    for (const json& ref : *refs) {
      const std::string api_version = StringField(ref, "apiVersion");
      const std::string kind = StringField(ref, "kind");
      // schema.FromAPIVersionAndKind: an unparsable apiVersion leaves the version empty.
      std::string group, version;
      const size_t slashes = std::count(api_version.begin(), api_version.end(), '/');
      if (api_version.empty() || api_version == "/") {
      } else if (slashes == 0) {
        version = api_version;
      } else if (slashes == 1) {
        const size_t slash = api_version.find('/');
        group = api_version.substr(0, slash);
        version = api_version.substr(slash + 1);
      }
      if (version.empty()) {
        errors.push_back(
            v::FieldInvalid(owners_path + ".apiVersion", api_version, "version must not be empty"));
      }
      if (kind.empty()) {
        errors.push_back(v::FieldInvalid(owners_path + ".kind", kind, "kind must not be empty"));
      }
      if (StringField(ref, "name").empty()) {
        errors.push_back(v::FieldInvalid(owners_path + ".name", "", "name must not be empty"));
      }
      if (StringField(ref, "uid").empty()) {
        errors.push_back(v::FieldInvalid(owners_path + ".uid", "", "uid must not be empty"));
      }
      if (group.empty() && version == "v1" && kind == "Event") {
        errors.push_back(InvalidVerbatim(owners_path, OwnerReferenceString(ref),
                                         "/v1, Kind=Event is disallowed from being an owner"));
      }
      auto controller = ref.find("controller");
      if (controller != ref.end() && controller->is_boolean() && controller->get<bool>()) {
        const std::string current = kind + "/" + StringField(ref, "name");
        if (!first_controller.empty()) {
          errors.push_back(InvalidVerbatim(
              owners_path, OwnerReferencesSharpV(*refs),
              "Only one reference can have Controller set to true. Found \"true\" in references "
              "for " +
                  first_controller + " and " + current));
        } else {
          first_controller = current;
        }
      }
    }
  }

  // Finalizers.
  const std::string finalizers_path = Child(path, "finalizers");
  if (auto finalizers = meta.find("finalizers");
      finalizers != meta.end() && finalizers->is_array()) {
    bool orphan = false, foreground = false;
    std::vector<std::string> all;
    for (const json& f : *finalizers) {
      const std::string value = f.is_string() ? f.get<std::string>() : "";
      all.push_back(value);
      for (const std::string& msg : v::IsQualifiedName(value)) {
        errors.push_back(v::FieldInvalid(finalizers_path, value, msg));
      }
      orphan = orphan || value == "orphan";
      foreground = foreground || value == "foregroundDeletion";
    }
    if (orphan && foreground) {
      errors.push_back(
          InvalidVerbatim(finalizers_path, v::GoStringSlice(all),
                          "finalizer orphan and foregroundDeletion cannot be both set"));
    }
  }

  // Managed fields.
  if (auto managed = meta.find("managedFields"); managed != meta.end() && managed->is_array()) {
    for (size_t i = 0; i < managed->size(); ++i) {
      const json& entry = (*managed)[i];
      const std::string entry_path = Child(path, "managedFields") + "[" + std::to_string(i) + "]";
      const std::string operation = StringField(entry, "operation");
      if (operation != "Apply" && operation != "Update") {
        errors.push_back(
            v::FieldInvalid(entry_path + ".operation", operation, "must be `Apply` or `Update`"));
      }
      const std::string fields_type = StringField(entry, "fieldsType");
      if (!fields_type.empty() && fields_type != "FieldsV1") {
        errors.push_back(
            v::FieldInvalid(entry_path + ".fieldsType", fields_type, "must be `FieldsV1`"));
      }
      const std::string manager = StringField(entry, "manager");
      if (manager.size() > 128) errors.push_back(v::FieldTooLong(entry_path + ".manager", 128));
      for (size_t k = 0; k < manager.size();) {
        const v::DecodedRune r = v::DecodeRune(std::string_view(manager).substr(k));
        if (!IsPrint(r.rune)) {
          char buf[16];
          std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(r.rune));
          errors.push_back(v::FieldInvalid(entry_path + ".manager", manager,
                                           std::string("invalid character ") + buf +
                                               " (at position " + std::to_string(k) + ")"));
        }
        k += r.size;
      }
      if (StringField(entry, "subresource").size() > 256) {
        errors.push_back(v::FieldTooLong(entry_path + ".subresource", 256));
      }
    }
  }
}

// schema.ParseGroupVersion's error, if any.
std::optional<std::string> GroupVersionError(const std::string& gv) {
  if (gv.empty() || gv == "/") return std::nullopt;
  if (std::count(gv.begin(), gv.end(), '/') > 1) return "unexpected GroupVersion string: " + gv;
  return std::nullopt;
}

void ValidateEmbedded(const std::string& path, const json& x, FieldErrors& errors) {
  if (!x.contains("apiVersion")) errors.push_back(v::FieldRequired(Child(path, "apiVersion"), ""));
  if (!x.contains("kind")) errors.push_back(v::FieldRequired(Child(path, "kind"), ""));
  for (auto it = x.begin(); it != x.end(); ++it) {
    const std::string& k = it.key();
    const json& value = it.value();
    if (k == "apiVersion") {
      const std::string field = Child(path, "apiVersion");
      if (!value.is_string()) {
        v::FieldError e = v::FieldInvalid(field, "", "must be a string");
        SetBadValue(e, value);
        errors.push_back(std::move(e));
      } else if (value.get_ref<const std::string&>().empty()) {
        errors.push_back(v::FieldRequired(field, ""));
      } else if (auto err = GroupVersionError(value.get<std::string>())) {
        errors.push_back(v::FieldInvalid(field, value.get<std::string>(), *err));
      }
    } else if (k == "kind") {
      const std::string field = Child(path, "kind");
      if (!value.is_string()) {
        v::FieldError e = v::FieldInvalid(field, "", "must be a string");
        SetBadValue(e, value);
        errors.push_back(std::move(e));
      } else if (value.get_ref<const std::string&>().empty()) {
        errors.push_back(v::FieldRequired(field, ""));
      } else {
        std::string lower = value.get<std::string>();
        for (char& c : lower) {
          if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        }
        auto msgs = v::IsDNS1035Label(lower);
        if (!msgs.empty()) {
          std::string joined;
          for (size_t i = 0; i < msgs.size(); ++i) joined += (i ? "," : "") + msgs[i];
          errors.push_back(
              v::FieldInvalid(field, value.get<std::string>(),
                              "may have mixed case, but should otherwise match: " + joined));
        }
      }
    } else if (k == "metadata") {
      const std::string field = Child(path, "metadata");
      if (auto err = ObjectMetaDecodeError(value)) {
        v::FieldError e = v::FieldInvalid(field, "", *err);
        SetBadValue(e, value);
        errors.push_back(std::move(e));
      } else if (value.is_object()) {
        ValidateObjectMeta(value, field, errors);
      }
    }
  }
}

void ValidateWalk(const std::string& path, const json& x, const json* s, FieldErrors& errors) {
  if (!s) return;
  if (x.is_object()) {
    if (node::EmbeddedResource(s)) ValidateEmbedded(path, x, errors);
    const node::Additional additional = node::AdditionalProperties(s);
    for (auto it = x.begin(); it != x.end(); ++it) {
      if (const json* prop = node::Property(s, it.key())) {
        ValidateWalk(Child(path, it.key()), it.value(), prop, errors);
      } else if (additional.present) {
        ValidateWalk(path + "[" + it.key() + "]", it.value(), additional.schema, errors);
      }
    }
  } else if (x.is_array()) {
    const json* items = node::Items(s);
    for (size_t i = 0; i < x.size(); ++i) {
      ValidateWalk(path + "[" + std::to_string(i) + "]", x[i], items, errors);
    }
  }
}

void CoerceWalk(const std::string& path, json& x, const json* s,
                std::vector<std::string>& unknown) {
  if (!s) return;
  if (x.is_object()) {
    if (node::EmbeddedResource(s)) {
      for (const char* key : {"apiVersion", "kind"}) {
        auto it = x.find(key);
        if (it != x.end() && !it->is_string()) x.erase(it);
      }
      if (auto meta = x.find("metadata"); meta != x.end()) {
        for (std::string& p : CoerceObjectMeta(*meta, Child(path, "metadata"))) {
          unknown.push_back(std::move(p));
        }
      }
    }
    const node::Additional additional = node::AdditionalProperties(s);
    for (auto it = x.begin(); it != x.end(); ++it) {
      if (const json* prop = node::Property(s, it.key())) {
        CoerceWalk(Child(path, it.key()), it.value(), prop, unknown);
      } else if (additional.present) {
        CoerceWalk(path + "[" + it.key() + "]", it.value(), additional.schema, unknown);
      }
    }
  } else if (x.is_array()) {
    const json* items = node::Items(s);
    for (size_t i = 0; i < x.size(); ++i) {
      CoerceWalk(path + "[" + std::to_string(i) + "]", x[i], items, unknown);
    }
  }
}

}  // namespace

std::optional<std::string> ObjectMetaDecodeError(const json& metadata) {
  if (metadata.is_null()) return std::nullopt;
  if (!metadata.is_object()) {
    return "json: cannot unmarshal " + JSONKind(metadata) + " into Go value of type v1.ObjectMeta";
  }
  return StructError(metadata, ObjectMetaFields(), "ObjectMeta", "");
}

std::vector<std::string> CoerceObjectMeta(json& metadata, std::string_view prefix) {
  std::vector<std::string> unknown;
  if (metadata.is_null()) {
    metadata = json::object();
    return unknown;
  }
  if (!metadata.is_object()) return unknown;
  const auto& fields = ObjectMetaFields();
  json out = json::object();
  const std::string base(prefix);
  for (auto it = metadata.begin(); it != metadata.end(); ++it) {
    auto spec = fields.find(it.key());
    if (spec == fields.end()) {
      unknown.push_back(base + "." + it.key());
      continue;
    }
    Context ctx{"ObjectMeta", it.key()};
    if (FieldError(it.value(), spec->second, ctx)) continue;  // dropped as malformed
    if (auto n = Normalize(it.value(), spec->second, base + "." + it.key(), unknown)) {
      out[it.key()] = std::move(*n);
    }
  }
  metadata = std::move(out);
  return unknown;
}

std::vector<std::string> CoerceEmbeddedResources(json& object, const json& schema) {
  std::vector<std::string> unknown;
  CoerceWalk("", object, &schema, unknown);
  std::sort(unknown.begin(), unknown.end());
  return unknown;
}

FieldErrors ValidateEmbeddedResources(const json& schema, const json& object) {
  FieldErrors errors;
  ValidateWalk("", object, &schema, errors);
  return errors;
}

}  // namespace apiextensions::schema
