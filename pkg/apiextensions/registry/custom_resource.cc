#include "pkg/apiextensions/registry/custom_resource.h"
#include "pkg/master/schemas/schemas.h"

#include <openssl/sha.h>

#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/cel/rules.h"
#include "pkg/apiextensions/registry/openapi_v2_schema.h"
#include "pkg/apiextensions/registry/printer_columns.h"
#include "pkg/apiextensions/schema/structural.h"
#include "pkg/genericserver/endpoints/openapi/naming.h"
#include "pkg/genericserver/endpoints/version_priority.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/scale_view.h"
#include "pkg/util/base64.h"

namespace apiextensions {
namespace {

using nlohmann::json;

// The value at a field path as errors print it ("spec.items[0].name", "spec.map[key]"),
// or null when absent; `found` says which.
const json* At(const json& object, std::string_view path) {
  const json* node = &object;
  size_t i = 0;
  while (i < path.size() && node) {
    if (path[i] == '.') ++i;
    if (i < path.size() && path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string_view::npos) return nullptr;
      const std::string key(path.substr(i + 1, close - i - 1));
      i = close + 1;
      if (node->is_array()) {
        char* end = nullptr;
        const long index = std::strtol(key.c_str(), &end, 10);
        if (*end != '\0' || index < 0 || static_cast<size_t>(index) >= node->size()) return nullptr;
        node = &(*node)[index];
      } else if (node->is_object() && node->contains(key)) {
        node = &(*node)[key];
      } else {
        return nullptr;
      }
      continue;
    }
    const size_t end = path.find_first_of(".[", i);
    const std::string key(path.substr(i, end == std::string_view::npos ? end : end - i));
    i = end == std::string_view::npos ? path.size() : end;
    if (!node->is_object() || !node->contains(key)) return nullptr;
    node = &(*node)[key];
  }
  return node;
}

// Whether the value an error is about is the same in the stored object (both absent counts
// when their parents are the same).
bool Unchanged(std::string_view path, const json& object, const json& old) {
  if (path.empty() || path == "<nil>") return false;
  const json* now = At(object, path);
  const json* before = At(old, path);
  if (now && before) return *now == *before;
  if (now || before) return false;
  const size_t cut = path.find_last_of(".[");
  if (cut == std::string_view::npos || cut == 0) return false;
  return Unchanged(path.substr(0, cut), object, old);
}

// What the strategies and the pruner of one served version share.
struct VersionSchema {
  json schema;                                // openAPIV3Schema; null when absent
  std::shared_ptr<const cel::RuleSet> rules;  // null when the schema has no rules
  json components;                            // for OpenAPI: the kind's schema by name
  json definitions_v2;                        // for OpenAPI v2: the kind's and list's
};

namespace v = apimachinery::validation;

// Errors that make CEL rules pointless to run, as upstream's hasBlockingErr decides.
bool Blocking(const v::FieldError& e) {
  return e.type == v::kFieldValueNotSupported || e.type == v::kFieldValueRequired ||
         e.type == v::kFieldValueTypeInvalid;
}

registry::FieldErrors ValidateAgainst(const VersionSchema& s, const json& object, const json* old) {
  registry::FieldErrors errors;
  if (!s.schema.is_object()) return errors;
  for (auto& e : schema::ValidateCustomResource(s.schema, object)) {
    // Ratcheting (on by default since 1.30): an update may keep a value the schema now
    // refuses, as long as it does not change it.
    if (old && Unchanged(e.field, object, *old)) continue;
    errors.push_back(std::move(e));
  }
  // Upstream has a CEL validator only for schemas with rules; only then is this said.
  if (!s.rules) return errors;
  if (std::any_of(errors.begin(), errors.end(), Blocking)) {
    v::FieldError note = v::FieldInvalid("<nil>", "null",
                                         "some validation rules were not checked because the "
                                         "object was invalid; correct the existing errors to "
                                         "complete validation");
    errors.push_back(std::move(note));
    return errors;
  }
  for (auto& e : s.rules->Validate(object, old)) errors.push_back(std::move(e));
  return errors;
}

class CustomResourceStrategy final : public registry::Strategy {
 public:
  CustomResourceStrategy(std::shared_ptr<const VersionSchema> schema, bool status)
      : schema_(std::move(schema)), status_(status) {}

  void Default(json& object) const override {
    if (schema_->schema.is_object()) schema::ApplyDefaults(object, schema_->schema);
  }
  registry::FieldErrors Validate(const json& object) const override {
    return ValidateAgainst(*schema_, object, nullptr);
  }
  registry::FieldErrors ValidateUpdate(const json& object, const json& old) const override {
    return ValidateAgainst(*schema_, object, &old);
  }
  bool TracksGeneration() const override { return true; }
  bool AllowUnconditionalUpdate() const override { return false; }
  bool HasStatusSubresource() const override { return status_; }
  // Without a status subresource every change outside metadata counts, status included.
  bool GenerationChanged(const json& object, const json& old) const override {
    if (status_) return registry::SpecChanged(object, old);
    json a = object, b = old;
    a.erase("metadata");
    b.erase("metadata");
    return a != b;
  }

 private:
  std::shared_ptr<const VersionSchema> schema_;
  bool status_;
};

class CustomResourceStatusStrategy final : public registry::StatusStrategy {
 public:
  // As upstream: everything but status comes from the stored object, metadata included.
  explicit CustomResourceStatusStrategy(std::shared_ptr<const VersionSchema> schema)
      : StatusStrategy(registry::StatusOptions{registry::kResetObjectMetaForStatus, false}),
        schema_(std::move(schema)) {}
  registry::FieldErrors ValidateUpdate(const json& object, const json& old) const override {
    return ValidateAgainst(*schema_, object, &old);
  }

 private:
  std::shared_ptr<const VersionSchema> schema_;
};

class Pruner final : public registry::UnstructuredSchema {
 public:
  explicit Pruner(std::shared_ptr<const VersionSchema> schema) : schema_(std::move(schema)) {}
  std::vector<std::string> Prune(json& object) const override {
    if (!schema_->schema.is_object()) return {};
    return schema::PruneCustomResource(object, schema_->schema);
  }

 private:
  std::shared_ptr<const VersionSchema> schema_;
};

std::vector<std::string> Strings(const json& object, const char* key) {
  std::vector<std::string> out;
  if (!object.is_object()) return out;
  for (const json& v : object.value(key, json::array())) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::string String(const json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// The kind's schema as OpenAPI publishes it: apiVersion, kind and metadata described as for
// every object, the group-version-kind extension added.
json PublishedSchema(const json& schema, const std::string& group, const std::string& version,
                     const std::string& kind) {
  json out = schema.is_object() ? schema : json{{"type", "object"}};
  json& props = out["properties"];
  if (!props.is_object()) props = json::object();
  props["apiVersion"] = {{"type", "string"}};
  props["kind"] = {{"type", "string"}};
  props["metadata"] = {
      {"$ref", "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}};
  out["x-kubernetes-group-version-kind"] =
      json::array({{{"group", group}, {"kind", kind}, {"version", version}}});
  return out;
}

// "v1beta2" -> {kind, major, minor}: kind 3 GA, 2 beta, 1 alpha, 0 anything else.

}  // namespace

bool SchemaUses(const json& schema, std::string_view keyword) {
  if (!schema.is_object()) return false;
  if (schema.contains(keyword)) return true;
  for (const char* key : {"properties", "patternProperties", "definitions"}) {
    if (auto it = schema.find(key); it != schema.end() && it->is_object()) {
      for (const auto& [name, child] : it->items()) {
        if (SchemaUses(child, keyword)) return true;
      }
    }
  }
  for (const char* key : {"items", "additionalProperties", "additionalItems", "not"}) {
    if (auto it = schema.find(key); it != schema.end()) {
      if (it->is_array()) {
        for (const json& child : *it) {
          if (SchemaUses(child, keyword)) return true;
        }
      } else if (SchemaUses(*it, keyword)) {
        return true;
      }
    }
  }
  for (const char* key : {"allOf", "anyOf", "oneOf"}) {
    if (auto it = schema.find(key); it != schema.end() && it->is_array()) {
      for (const json& child : *it) {
        if (SchemaUses(child, keyword)) return true;
      }
    }
  }
  return false;
}

std::string StorageVersionHash(const std::string& group, const std::string& version,
                               const std::string& kind) {
  const std::string gvk = group + "/" + version + "/" + kind;
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(gvk.data()), gvk.size(), digest);
  return util::Base64Encode(std::string_view(reinterpret_cast<const char*>(digest), 8));
}

std::string DefaultDeprecationWarning(const json& crd, const std::string& version,
                                      const std::string& kind) {
  const json& spec = crd.at("spec");
  const std::string group = String(spec, "group");
  std::string message = group + "/" + version + " " + kind + " is deprecated";
  std::vector<std::string> current;
  for (const json& v : spec.value("versions", json::array())) {
    if (v.is_object() && v.value("served", false) && !v.value("deprecated", false)) {
      current.push_back(String(v, "name"));
    }
  }
  if (current.empty()) return message;
  std::sort(current.begin(), current.end(), endpoints::VersionPriorityLess);
  return message + "; use " + group + "/" + current.front() + " " + kind;
}

std::string StorageVersion(const json& crd) {
  for (const json& v : crd["spec"].value("versions", json::array())) {
    if (v.is_object() && v.value("storage", false)) return String(v, "name");
  }
  return "";
}

std::expected<registry::ResourceSpecPtr, std::string> CustomResourceSpec(
    const json& crd, const std::string& version) {
  const json& spec = crd.at("spec");
  const json& versions = spec.value("versions", json::array());
  const json* served = nullptr;
  size_t index = 0;
  for (size_t i = 0; i < versions.size(); ++i) {
    if (String(versions[i], "name") == version) {
      served = &versions[i];
      index = i;
    }
  }
  if (!served) return std::unexpected("no version " + version);
  const json accepted = crd.contains("status")
                            ? crd["status"].value("acceptedNames", json::object())
                            : json::object();
  auto out = std::make_shared<registry::ResourceSpec>();
  out->group = String(spec, "group");
  out->version = version;
  out->kind = String(accepted, "kind");
  out->list_kind = String(accepted, "listKind");
  out->plural = String(spec["names"], "plural");
  out->singular = String(accepted, "singular");
  out->short_names = Strings(accepted, "shortNames");
  out->categories = Strings(accepted, "categories");
  if (out->kind.empty() || out->plural.empty()) return std::unexpected("names not accepted");
  out->namespaced = String(spec, "scope") != "Cluster";
  out->verbs = {"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"};
  out->storage_version_hash = StorageVersionHash(out->group, StorageVersion(crd), out->kind);
  if (served->value("deprecated", false)) {
    out->deprecation_warning = String(*served, "deprecationWarning");
    if (out->deprecation_warning.empty()) {
      out->deprecation_warning = DefaultDeprecationWarning(crd, version, out->kind);
    }
  }

  auto schema = std::make_shared<VersionSchema>();
  if (served->contains("schema") && (*served)["schema"].is_object()) {
    schema->schema = (*served)["schema"].value("openAPIV3Schema", json());
  }
  if (schema->schema.is_object() && SchemaUses(schema->schema, "x-kubernetes-validations")) {
    auto rules = cel::Compile(
        schema->schema, "spec.versions[" + std::to_string(index) + "].schema.openAPIV3Schema");
    if (rules) schema->rules = *rules;
  }
  const std::string definition = endpoints::openapi::DefinitionName(out->group, version, out->kind);
  schema->components = {
      {definition, PublishedSchema(schema->schema, out->group, version, out->kind)}};
  schema->definitions_v2 = OpenAPIV2Definitions(
      schema->schema, {out->group, version, out->kind,
                       out->list_kind.empty() ? out->kind + "List" : out->list_kind, out->plural});

  const json& subresources = served->value("subresources", json::object());
  const bool status = subresources.is_object() && subresources.contains("status") &&
                      !subresources["status"].is_null();
  out->strategy = std::make_shared<CustomResourceStrategy>(schema, status);
  if (status) {
    out->subresources.push_back({"status",
                                 out->Kind(),
                                 {"get", "patch", "update"},
                                 std::make_shared<CustomResourceStatusStrategy>(schema)});
  }
  if (subresources.is_object() && subresources.contains("scale") &&
      subresources["scale"].is_object()) {
    const json& scale = subresources["scale"];
    registry::ScalePaths paths;
    paths.spec_replicas = registry::SplitSimplePath(String(scale, "specReplicasPath"));
    paths.status_replicas = registry::SplitSimplePath(String(scale, "statusReplicasPath"));
    if (const std::string selector = String(scale, "labelSelectorPath"); !selector.empty()) {
      paths.selector = [path = registry::SplitSimplePath(selector)](const json& object) {
        const json* node = &object;
        for (const std::string& key : path) {
          if (!node->is_object() || !node->contains(key)) return std::string();
          node = &(*node)[key];
        }
        return node->is_string() ? node->get<std::string>() : std::string();
      };
    }
    out->subresources.push_back({"scale",
                                 {"autoscaling", "v1", "Scale"},
                                 {"get", "patch", "update"},
                                 nullptr,
                                 registry::NewScaleView(std::move(paths))});
  }
  AddPrinterColumns(*out, served->value("additionalPrinterColumns", json::array()));
  // selectableFields: ".spec.color" is selected as "spec.color", by its value's text.
  for (const json& field : served->value("selectableFields", json::array())) {
    const std::string path = String(field, "jsonPath");
    if (path.size() < 2) continue;
    out->fields[path.substr(1)] = [steps = registry::SplitSimplePath(path)](const json& object) {
      const json* node = &object;
      for (const std::string& key : steps) {
        if (!node->is_object() || !node->contains(key)) return std::string();
        node = &(*node)[key];
      }
      if (node->is_string()) return node->get<std::string>();
      if (node->is_boolean() || node->is_number_integer()) return node->dump();
      return std::string();
    };
  }
  out->schema_name = definition;
  out->components = &schema->components;
  // Server-side apply reads ObjectMeta, which the kind's schema refers to, from meta/v1.
  out->shared_components = schemas::Components("v1");
  out->definitions_v2 = &schema->definitions_v2;
  out->unstructured = std::make_shared<Pruner>(schema);
  // The spec keeps the schema (and so its components) alive through its strategy.
  out->Complete();
  return out;
}

}  // namespace apiextensions
