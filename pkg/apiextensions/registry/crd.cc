#include "pkg/apiextensions/registry/crd.h"

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/crd_validation.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/master/schemas/schemas.h"

namespace apiextensions {
namespace {

using nlohmann::json;

// Adds the storage version of spec.versions to status.storedVersions if it is not there.
void RecordStorageVersion(json& crd) {
  json& stored = crd["status"]["storedVersions"];
  if (!stored.is_array()) stored = json::array();
  for (const json& v : crd["spec"].value("versions", json::array())) {
    if (!v.is_object() || !v.value("storage", false)) continue;
    const json name = v.value("name", json(""));
    if (std::find(stored.begin(), stored.end(), name) == stored.end()) stored.push_back(name);
  }
}

class CRDStrategy final : public registry::Strategy {
 public:
  void Default(json& object) const override { validation::SetDefaults(object); }
  void PrepareForCreate(json& object) const override {
    object["status"] = {{"acceptedNames", {{"kind", ""}, {"plural", ""}}}};
    RecordStorageVersion(object);
  }
  void PrepareForUpdate(json& object, const json& old) const override {
    object["status"] = old.value("status", json::object());
    RecordStorageVersion(object);
  }
  registry::FieldErrors Validate(const json& object) const override {
    return validation::ValidateCustomResourceDefinition(object);
  }
  registry::FieldErrors ValidateUpdate(const json& object, const json& old) const override {
    return validation::ValidateCustomResourceDefinitionUpdate(object, old);
  }
  bool TracksGeneration() const override { return true; }
  bool HasStatusSubresource() const override { return true; }
  bool AllowUnconditionalUpdate() const override { return false; }
  bool PrepareForDelete(json& object) const override {
    json& finalizers = object["metadata"]["finalizers"];
    if (!finalizers.is_array()) finalizers = json::array();
    if (std::find(finalizers.begin(), finalizers.end(), kCleanupFinalizer) == finalizers.end()) {
      finalizers.push_back(kCleanupFinalizer);
    }
    SetCondition(object, "Terminating", "True", "InstanceDeletionPending",
                 "CustomResourceDefinition marked for deletion; CustomResource deletion will "
                 "begin soon",
                 registry::NowTimestamp());
    return true;
  }
};

// Spec as stored. Upstream means to reset the metadata too, but its reset copies the new
// object's onto itself (kubernetes/kubernetes#137681): metadata changes are kept, as here.
class CRDStatusStrategy final : public registry::StatusStrategy {
 public:
  CRDStatusStrategy() : StatusStrategy(registry::StatusOptions{{}, false}) {}
  registry::FieldErrors ValidateUpdate(const json& object, const json& old) const override {
    return validation::ValidateCustomResourceDefinitionStatusUpdate(object, old);
  }
};

}  // namespace

void SetCondition(json& crd, std::string_view type, std::string_view status,
                  std::string_view reason, std::string_view message, const std::string& now) {
  json& conditions = crd["status"]["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  json condition = {{"type", type},
                    {"status", status},
                    {"reason", reason},
                    {"message", message},
                    {"lastTransitionTime", now}};
  for (json& c : conditions) {
    if (c.is_object() && c.value("type", "") == type) {
      if (c.value("status", "") == status && c.contains("lastTransitionTime")) {
        condition["lastTransitionTime"] = c["lastTransitionTime"];
      }
      c = std::move(condition);
      return;
    }
  }
  conditions.push_back(std::move(condition));
}

bool ConditionTrue(const json& crd, std::string_view type) {
  auto status = crd.find("status");
  if (status == crd.end() || !status->is_object()) return false;
  for (const json& c : status->value("conditions", json::array())) {
    if (c.is_object() && c.value("type", "") == type) return c.value("status", "") == "True";
  }
  return false;
}

registry::ResourceSpecPtr CustomResourceDefinitionSpec() {
  auto spec = std::make_shared<registry::ResourceSpec>();
  spec->group = "apiextensions.k8s.io";
  spec->version = "v1";
  spec->kind = "CustomResourceDefinition";
  spec->plural = "customresourcedefinitions";
  spec->short_names = {"crd", "crds"};
  spec->categories = {"api-extensions"};
  spec->namespaced = false;
  spec->strategy = std::make_shared<CRDStrategy>();
  spec->subresources.push_back(
      {"status", spec->Kind(), {"get", "patch", "update"}, std::make_shared<CRDStatusStrategy>()});
  if (auto name = schemas::SchemaNameForKind(spec->group, spec->version, spec->kind)) {
    spec->schema_name = *name;
    spec->components = schemas::Components(spec->GroupVersion());
  }
  spec->Complete();
  return spec;
}

}  // namespace apiextensions
