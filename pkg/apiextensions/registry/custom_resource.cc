#include "pkg/apiextensions/registry/custom_resource.h"

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/cel/rules.h"
#include "pkg/apiextensions/registry/printer_columns.h"
#include "pkg/apiextensions/schema/structural.h"
#include "pkg/genericserver/endpoints/openapi/naming.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/scale_view.h"

namespace apiextensions {
namespace {

using nlohmann::json;

// What the strategies and the pruner of one served version share.
struct VersionSchema {
  json schema;                                // openAPIV3Schema; null when absent
  std::shared_ptr<const cel::RuleSet> rules;  // null when the schema has none
  json components;                            // for OpenAPI: the kind's schema by name
};

registry::FieldErrors ValidateAgainst(const VersionSchema& s, const json& object, const json* old) {
  registry::FieldErrors errors;
  if (!s.schema.is_object()) return errors;
  errors = schema::ValidateCustomResource(s.schema, object);
  if (s.rules) {
    for (auto& e : s.rules->Validate(object, old)) errors.push_back(std::move(e));
  }
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
  explicit CustomResourceStatusStrategy(std::shared_ptr<const VersionSchema> schema)
      : schema_(std::move(schema)) {}
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

}  // namespace

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

  auto schema = std::make_shared<VersionSchema>();
  if (served->contains("schema") && (*served)["schema"].is_object()) {
    schema->schema = (*served)["schema"].value("openAPIV3Schema", json());
  }
  if (schema->schema.is_object()) {
    auto rules = cel::Compile(
        schema->schema, "spec.versions[" + std::to_string(index) + "].schema.openAPIV3Schema");
    if (rules) schema->rules = *rules;
  }
  const std::string definition = endpoints::openapi::DefinitionName(out->group, version, out->kind);
  schema->components = {
      {definition, PublishedSchema(schema->schema, out->group, version, out->kind)}};

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
  out->schema_name = definition;
  out->components = &schema->components;
  out->unstructured = std::make_shared<Pruner>(schema);
  // The spec keeps the schema (and so its components) alive through its strategy.
  out->Complete();
  return out;
}

}  // namespace apiextensions
