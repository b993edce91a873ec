// apps/v1 deployments: replicas, the rolling update strategy (25%/25%), revision history
// and progress deadline defaulted as upstream; the selector fixed at creation.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
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
namespace v = apimachinery::validation;

void Default(json& d) {
  json& spec = Child(d, "spec");
  SetDefault(spec, "replicas", 1);
  json& strategy = Child(spec, "strategy");
  SetDefault(strategy, "type", "RollingUpdate");
  if (strategy["type"] == "RollingUpdate") {
    json& rolling = Child(strategy, "rollingUpdate");
    SetDefault(rolling, "maxUnavailable", "25%");
    SetDefault(rolling, "maxSurge", "25%");
  }
  SetDefault(spec, "revisionHistoryLimit", 10);
  SetDefault(spec, "progressDeadlineSeconds", 600);
  DefaultPodTemplate(Child(spec, "template"));
}

registry::FieldErrors Validate(const json& d) {
  registry::FieldErrors errors;
  const json& spec = Sub(d, "spec");
  ValidateNonNegative(d, {"replicas", "minReadySeconds", "revisionHistoryLimit"}, errors);
  ValidateSelector(d, "deployment", errors);
  ValidateAlwaysRestartingTemplate(d, errors);
  const json& strategy = Sub(spec, "strategy");
  const std::string type = Str(strategy, "type");
  if (type != "Recreate" && type != "RollingUpdate") {
    errors.push_back(
        v::FieldNotSupported("spec.strategy.type", type, {"Recreate", "RollingUpdate"}));
  } else if (type == "Recreate" && strategy.contains("rollingUpdate")) {
    errors.push_back(v::FieldForbidden("spec.strategy.rollingUpdate",
                                       "may not be specified when strategy `type` is 'Recreate'"));
  }
  if (spec.contains("progressDeadlineSeconds") &&
      Int(spec, "progressDeadlineSeconds") <= Int(spec, "minReadySeconds")) {
    errors.push_back(v::FieldInvalid("spec.progressDeadlineSeconds",
                                     std::to_string(Int(spec, "progressDeadlineSeconds")),
                                     "must be greater than minReadySeconds"));
    errors.back().value_form = v::ValueForm::kVerbatim;
  }
  return errors;
}

}  // namespace

registry::ResourceSpecPtr Deployments() {
  KindHooks hooks;
  hooks.status.stored_metadata = {"labels"};  // as upstream: status writes keep them
  hooks.defaults = Default;
  hooks.prepare_create = [](json& d) { d["status"] = json::object(); };
  hooks.validate = Validate;
  hooks.validate_update = SelectorUnchanged;
  hooks.generation = true;
  auto spec = Builtin("apps/v1", "deployments", std::move(hooks));
  spec->short_names = {"deploy"};
  spec->categories = {"all"};
  spec->columns = {
      registry::NameColumn(),
      {"Ready", "string", "", "Ready replicas out of the desired number.", 0},
      {"Up-to-date", "integer", "", "Replicas running the current template.", 0},
      {"Available", "integer", "", "Replicas available to serve.", 0},
      registry::AgeColumn(),
  };
  for (auto& c : TemplateColumns()) spec->columns.push_back(std::move(c));
  spec->row = [](const json& d, std::chrono::system_clock::time_point now) {
    const json& s = Sub(d, "spec");
    const json& status = Sub(d, "status");
    std::vector<json> row{
        registry::MetaString(d, "name"),
        std::to_string(Int(status, "readyReplicas")) + "/" + std::to_string(Int(s, "replicas")),
        Int(status, "updatedReplicas"), Int(status, "availableReplicas"), registry::Age(d, now)};
    AppendTemplateCells(Sub(s, "template"), s.value("selector", json()), row);
    return row;
  };
  AddScale(*spec);
  return Finish(std::move(spec));
}

}  // namespace master::resources
