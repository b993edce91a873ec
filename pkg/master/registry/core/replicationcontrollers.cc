// core/v1 replication controllers: the older replica sets; the selector (a plain map)
// and the controller's labels default to the template's labels.
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

void Default(json& rc) {
  json& spec = Child(rc, "spec");
  SetDefault(spec, "replicas", 1);
  const json labels = Sub(Sub(spec, "template"), "metadata").value("labels", json());
  if (labels.is_object() && !labels.empty()) {
    if (Sub(spec, "selector").empty()) spec["selector"] = labels;
    if (Sub(Sub(rc, "metadata"), "labels").empty()) Child(rc, "metadata")["labels"] = labels;
  }
  if (spec.contains("template")) DefaultPodTemplate(Child(spec, "template"));
}

registry::FieldErrors Validate(const json& rc) {
  registry::FieldErrors errors;
  const json& spec = Sub(rc, "spec");
  ValidateNonNegative(rc, {"replicas", "minReadySeconds"}, errors);
  const json& selector = Sub(spec, "selector");
  if (selector.empty()) errors.push_back(v::FieldRequired("spec.selector", ""));
  const json& labels = Sub(Sub(Sub(spec, "template"), "metadata"), "labels");
  if (!selector.empty() && !SelectorMatches({{"matchLabels", selector}}, labels)) {
    errors.push_back(v::FieldInvalid("spec.template.metadata.labels", GoStringMap(labels),
                                     "`selector` does not match template `labels`"));
    errors.back().value_form = v::ValueForm::kVerbatim;
  }
  ValidateAlwaysRestartingTemplate(rc, errors);
  return errors;
}

}  // namespace

registry::ResourceSpecPtr ReplicationControllers() {
  KindHooks hooks;
  hooks.defaults = Default;
  hooks.prepare_create = [](json& rc) { rc["status"] = {{"replicas", 0}}; };
  hooks.validate = Validate;
  hooks.generation = true;
  auto spec = Builtin("v1", "replicationcontrollers", std::move(hooks));
  spec->short_names = {"rc"};
  spec->categories = {"all"};
  SetReplicaTable(*spec, [](const json& rc) {
    return json{{"matchLabels", Sub(Sub(rc, "spec"), "selector")}};
  });
  spec->fields["status.replicas"] = [](const json& rc) {
    return std::to_string(Int(Sub(rc, "status"), "replicas"));
  };
  AddScale(*spec, [](const json& rc) {
    const std::string selector =
        FormatLabelSelector({{"matchLabels", Sub(Sub(rc, "spec"), "selector")}});
    return selector == "<none>" ? std::string() : selector;
  });
  return Finish(std::move(spec));
}

}  // namespace master::resources
