// apps/v1 stateful sets: ordered pods with stable names and their volume claim templates,
// defaulted as upstream (OrderedReady, RollingUpdate with partition 0, Retain policies).
#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/apps/workload.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/core/pod_defaults.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/scale.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;

void Default(json& sts) {
  json& spec = Child(sts, "spec");
  SetDefault(spec, "replicas", 1);
  SetDefault(spec, "podManagementPolicy", "OrderedReady");
  json& strategy = Child(spec, "updateStrategy");
  SetDefault(strategy, "type", "RollingUpdate");
  if (strategy["type"] == "RollingUpdate")
    SetDefault(Child(strategy, "rollingUpdate"), "partition", 0);
  SetDefault(spec, "revisionHistoryLimit", 10);
  json& retention = Child(spec, "persistentVolumeClaimRetentionPolicy");
  SetDefault(retention, "whenDeleted", "Retain");
  SetDefault(retention, "whenScaled", "Retain");
  DefaultPodTemplate(Child(spec, "template"));
  // Each claim template is a whole PersistentVolumeClaim, defaulted as one.
  if (auto claims = spec.find("volumeClaimTemplates"); claims != spec.end() && claims->is_array()) {
    for (json& claim : *claims) {
      if (!claim.is_object()) continue;
      claim["apiVersion"] = "v1";
      claim["kind"] = "PersistentVolumeClaim";
      json& meta = Child(claim, "metadata");
      if (!meta.contains("creationTimestamp")) meta["creationTimestamp"] = nullptr;
      SetDefault(Child(claim, "spec"), "volumeMode", "Filesystem");
      SetDefault(Child(claim, "status"), "phase", "Pending");
    }
  }
}

registry::FieldErrors Validate(const json& sts) {
  registry::FieldErrors errors;
  ValidateNonNegative(sts, {"replicas", "minReadySeconds", "revisionHistoryLimit"}, errors);
  ValidateSelector(sts, "statefulset", errors);
  std::vector<std::string> claims;
  for (const json& claim : List(Sub(sts, "spec"), "volumeClaimTemplates")) {
    claims.push_back(Str(Sub(claim, "metadata"), "name"));
  }
  ValidateAlwaysRestartingTemplate(sts, errors, claims);
  return errors;
}

}  // namespace

registry::ResourceSpecPtr StatefulSets() {
  KindHooks hooks;
  hooks.names = apimachinery::validation::NameRule::kDNS1123Label;
  hooks.defaults = Default;
  hooks.prepare_create = [](json& sts) {
    sts["status"] = {{"availableReplicas", 0}, {"replicas", 0}};
  };
  hooks.validate = Validate;
  hooks.validate_update = SelectorUnchanged;
  hooks.generation = true;
  auto spec = Builtin("apps/v1", "statefulsets", std::move(hooks));
  spec->short_names = {"sts"};
  spec->categories = {"all"};
  spec->columns = {
      registry::NameColumn(),
      {"Ready", "string", "", "Ready replicas out of the desired number.", 0},
      registry::AgeColumn(),
  };
  auto wide = TemplateColumns();
  wide.pop_back();  // no selector column for stateful sets
  for (auto& c : wide) spec->columns.push_back(std::move(c));
  spec->row = [](const json& sts, std::chrono::system_clock::time_point now) {
    const json& s = Sub(sts, "spec");
    std::vector<json> row{registry::MetaString(sts, "name"),
                          std::to_string(Int(Sub(sts, "status"), "readyReplicas")) + "/" +
                              std::to_string(Int(s, "replicas")),
                          registry::Age(sts, now)};
    AppendTemplateCells(Sub(s, "template"), s.value("selector", json()), row);
    row.pop_back();
    return row;
  };
  AddScale(*spec);
  return Finish(std::move(spec));
}

}  // namespace master::resources
