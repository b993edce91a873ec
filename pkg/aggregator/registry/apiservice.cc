#include "pkg/aggregator/registry/apiservice.h"

#include <nlohmann/json.hpp>

#include "pkg/aggregator/registry/apiservice_validation.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/schemas/schemas.h"

namespace aggregator {
namespace {

using nlohmann::json;

std::string Str(const json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// The Available condition of status.conditions, or null.
const json* AvailableCondition(const json& apiservice) {
  auto status = apiservice.find("status");
  if (status == apiservice.end() || !status->is_object()) return nullptr;
  auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return nullptr;
  for (const json& c : *conditions) {
    if (Str(c, "type") == "Available") return &c;
  }
  return nullptr;
}

class APIServiceStrategy final : public registry::Strategy {
 public:
  std::optional<std::string> Decode(json& object) const override {
    return validation::Decode(object);
  }
  void Default(json& object) const override { validation::SetDefaults(object); }
  // Status starts empty; a local APIService is available at once.
  void PrepareForCreate(json& object) const override {
    object["status"] = json::object();
    if (validation::IsLocal(object)) {
      object["status"]["conditions"] =
          json::array({{{"type", "Available"},
                        {"status", "True"},
                        {"lastTransitionTime", registry::NowTimestamp()},
                        {"reason", "Local"},
                        {"message", "Local APIServices are always available"}}});
    }
  }
  registry::FieldErrors Validate(const json& object) const override {
    return validation::ValidateAPIService(object);
  }
  bool AllowUnconditionalUpdate() const override { return false; }
  bool HasStatusSubresource() const override { return true; }
  apimachinery::validation::NameRule Names() const override {
    return apimachinery::validation::NameRule::kPathSegmentName;
  }
};

// Spec and metadata stay as stored (upstream resets the object's metadata); the conditions
// are checked.
class APIServiceStatusStrategy final : public registry::StatusStrategy {
 public:
  APIServiceStatusStrategy()
      : StatusStrategy(registry::StatusOptions{registry::kResetObjectMetaForStatus, false}) {}
  registry::FieldErrors ValidateUpdate(const json& object, const json&) const override {
    return validation::ValidateAPIServiceStatus(object);
  }
};

}  // namespace

std::string ServiceColumn(const json& apiservice) {
  if (validation::IsLocal(apiservice)) return "Local";
  const json& service = apiservice.at("spec").at("service");
  return Str(service, "namespace") + "/" + Str(service, "name");
}

std::string AvailableColumn(const json& apiservice) {
  const json* condition = AvailableCondition(apiservice);
  if (!condition) return "Unknown";
  const std::string status = Str(*condition, "status");
  const std::string reason = Str(*condition, "reason");
  if (status == "True" || reason.empty()) return status;
  return status + " (" + reason + ")";
}

registry::ResourceSpecPtr APIServices() {
  auto spec = std::make_shared<registry::ResourceSpec>();
  spec->group = "apiregistration.k8s.io";
  spec->version = "v1";
  spec->kind = "APIService";
  spec->plural = "apiservices";
  spec->categories = {"api-extensions"};
  spec->namespaced = false;
  spec->strategy = std::make_shared<APIServiceStrategy>();
  spec->subresources.push_back({"status",
                                spec->Kind(),
                                {"get", "patch", "update"},
                                std::make_shared<APIServiceStatusStrategy>()});
  spec->columns = {
      registry::NameColumn(),
      {"Service", "string", "", "The Service that serves the group-version, or Local.", 0},
      {"Available", "string", "", "Whether the group-version can be reached.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& apiservice, std::chrono::system_clock::time_point now) {
    return std::vector<json>{registry::MetaString(apiservice, "name"), ServiceColumn(apiservice),
                             AvailableColumn(apiservice), registry::Age(apiservice, now)};
  };
  if (auto name = schemas::SchemaNameForKind(spec->group, spec->version, spec->kind)) {
    spec->schema_name = *name;
    spec->components = schemas::Components(spec->GroupVersion());
  }
  spec->Complete();
  return spec;
}

}  // namespace aggregator
