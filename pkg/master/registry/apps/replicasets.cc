// apps/v1 replica sets: a number of pods from one template, the selector fixed at creation.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/apps/workload.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/core/pod_defaults.h"
#include "pkg/master/registry/core/pod_validation.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/scale.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;

registry::FieldErrors Validate(const json& rs) {
  registry::FieldErrors errors;
  ValidateNonNegative(rs, {"replicas", "minReadySeconds"}, errors);
  ValidateSelector(rs, "replicaset", errors);
  const json& pod = Sub(Sub(Sub(rs, "spec"), "template"), "spec");
  ValidatePodSpec(pod, "spec.template.spec", errors);
  ValidateRestartPolicy(pod, "spec.template.spec", {"Always"}, errors);
  return errors;
}

}  // namespace

registry::ResourceSpecPtr ReplicaSets() {
  KindHooks hooks;
  hooks.defaults = [](json& rs) {
    json& spec = Child(rs, "spec");
    SetDefault(spec, "replicas", 1);
    DefaultPodTemplate(Child(spec, "template"));
  };
  hooks.prepare_create = [](json& rs) { rs["status"] = {{"replicas", 0}}; };
  hooks.validate = Validate;
  hooks.validate_update = [](const json& rs, const json& old) {
    registry::FieldErrors errors;
    ValidateSelectorUnchanged(rs, old, errors);
    return errors;
  };
  hooks.generation = true;
  auto spec = Builtin("apps/v1", "replicasets", std::move(hooks));
  spec->short_names = {"rs"};
  spec->categories = {"all"};
  spec->columns = {
      registry::NameColumn(),
      {"Desired", "integer", "", "The number of pods wanted.", 0},
      {"Current", "integer", "", "The number of pods that exist.", 0},
      {"Ready", "integer", "", "The number of pods that are ready.", 0},
      registry::AgeColumn(),
  };
  for (auto& c : TemplateColumns()) spec->columns.push_back(std::move(c));
  spec->row = [](const json& rs, std::chrono::system_clock::time_point now) {
    const json& s = Sub(rs, "spec");
    const json& status = Sub(rs, "status");
    std::vector<json> row{registry::MetaString(rs, "name"), Int(s, "replicas"),
                          Int(status, "replicas"), Int(status, "readyReplicas"),
                          registry::Age(rs, now)};
    AppendTemplateCells(Sub(s, "template"), s.value("selector", json()), row);
    return row;
  };
  AddScale(*spec, [](const json& object) {
    const std::string selector = FormatLabelSelector(Sub(Sub(object, "spec"), "selector"));
    return selector == "<none>" ? std::string() : selector;
  });
  return Finish(std::move(spec));
}

}  // namespace master::resources
