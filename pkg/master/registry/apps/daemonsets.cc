// apps/v1 daemon sets: one pod per node; RollingUpdate (maxUnavailable 1, maxSurge 0)
// and a revision history of 10 by default.
#include <map>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/apps/workload.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/core/pod_defaults.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;

void Default(json& ds) {
  json& spec = Child(ds, "spec");
  json& strategy = Child(spec, "updateStrategy");
  SetDefault(strategy, "type", "RollingUpdate");
  if (strategy["type"] == "RollingUpdate") {
    json& rolling = Child(strategy, "rollingUpdate");
    SetDefault(rolling, "maxUnavailable", 1);
    SetDefault(rolling, "maxSurge", 0);
  }
  SetDefault(spec, "revisionHistoryLimit", 10);
  DefaultPodTemplate(Child(spec, "template"));
}

registry::FieldErrors Validate(const json& ds) {
  registry::FieldErrors errors;
  ValidateNonNegative(ds, {"minReadySeconds", "revisionHistoryLimit"}, errors);
  ValidateSelector(ds, "daemonset", errors);
  ValidateAlwaysRestartingTemplate(ds, errors);
  return errors;
}

}  // namespace

registry::ResourceSpecPtr DaemonSets() {
  KindHooks hooks;
  hooks.defaults = Default;
  hooks.prepare_create = [](json& ds) {
    ds["status"] = {{"currentNumberScheduled", 0},
                    {"desiredNumberScheduled", 0},
                    {"numberMisscheduled", 0},
                    {"numberReady", 0}};
  };
  hooks.validate = Validate;
  hooks.validate_update = SelectorUnchanged;
  hooks.generation = true;
  auto spec = Builtin("apps/v1", "daemonsets", std::move(hooks));
  spec->short_names = {"ds"};
  spec->categories = {"all"};
  spec->columns = {
      registry::NameColumn(),
      {"Desired", "integer", "", "Nodes that should run the pod.", 0},
      {"Current", "integer", "", "Nodes that run the pod.", 0},
      {"Ready", "integer", "", "Nodes whose pod is ready.", 0},
      {"Up-to-date", "integer", "", "Nodes running the current template.", 0},
      {"Available", "integer", "", "Nodes whose pod is available.", 0},
      {"Node Selector", "string", "", "The labels a node needs to run the pod.", 0},
      registry::AgeColumn(),
  };
  for (auto& c : TemplateColumns()) spec->columns.push_back(std::move(c));
  spec->row = [](const json& ds, std::chrono::system_clock::time_point now) {
    const json& s = Sub(ds, "spec");
    const json& status = Sub(ds, "status");
    const json& node_selector = Sub(Sub(Sub(s, "template"), "spec"), "nodeSelector");
    std::string nodes;
    for (const auto& [key, value] : node_selector.items()) {
      if (!nodes.empty()) nodes += ",";
      nodes += key + "=" + (value.is_string() ? value.get<std::string>() : "");
    }
    std::vector<json> row{
        registry::MetaString(ds, "name"),      Int(status, "desiredNumberScheduled"),
        Int(status, "currentNumberScheduled"), Int(status, "numberReady"),
        Int(status, "updatedNumberScheduled"), Int(status, "numberAvailable"),
        nodes.empty() ? "<none>" : nodes,      registry::Age(ds, now)};
    AppendTemplateCells(Sub(s, "template"), s.value("selector", json()), row);
    return row;
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
