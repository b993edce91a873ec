// apps/v1 replica sets: a number of pods from one template, the selector fixed at creation.
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

registry::FieldErrors Validate(const json& rs) {
  registry::FieldErrors errors;
  ValidateNonNegative(rs, {"replicas", "minReadySeconds"}, errors);
  ValidateSelector(rs, "replicaset", errors);
  ValidateAlwaysRestartingTemplate(rs, errors);
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
  hooks.validate_update = SelectorUnchanged;
  hooks.generation = true;
  auto spec = Builtin("apps/v1", "replicasets", std::move(hooks));
  spec->short_names = {"rs"};
  spec->categories = {"all"};
  SetReplicaTable(*spec, [](const json& rs) { return Sub(rs, "spec").value("selector", json()); });
  AddScale(*spec);
  return Finish(std::move(spec));
}

}  // namespace master::resources
