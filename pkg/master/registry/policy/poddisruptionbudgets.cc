// policy/v1 pod disruption budgets: how many selected pods may be down at once; either
// minAvailable or maxUnavailable.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

std::string IntOrString(const json& spec, const char* key) {
  auto it = spec.find(key);
  if (it == spec.end() || it->is_null()) return "N/A";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

}  // namespace

registry::ResourceSpecPtr PodDisruptionBudgets() {
  KindHooks hooks;
  hooks.unconditional_update = false;
  hooks.names = apimachinery::validation::NameRule::kNone;
  hooks.prepare_create = [](json& pdb) {
    pdb["status"] = {{"currentHealthy", 0},
                     {"desiredHealthy", 0},
                     {"disruptionsAllowed", 0},
                     {"expectedPods", 0}};
  };
  hooks.validate = [](const json& pdb) {
    registry::FieldErrors errors;
    const json& spec = Sub(pdb, "spec");
    if (spec.contains("minAvailable") && spec.contains("maxUnavailable") &&
        !spec["minAvailable"].is_null() && !spec["maxUnavailable"].is_null()) {
      errors.push_back(
          v::FieldInvalid("spec", "", "minAvailable and maxUnavailable cannot be both set"));
      errors.back().value_form = v::ValueForm::kOmitted;
    }
    return errors;
  };
  hooks.generation = true;
  auto spec = Builtin("policy/v1", "poddisruptionbudgets", std::move(hooks));
  spec->short_names = {"pdb"};
  spec->columns = {
      registry::NameColumn(),
      {"Min Available", "string", "", "Pods that must stay available.", 0},
      {"Max Unavailable", "string", "", "Pods that may be unavailable.", 0},
      {"Allowed Disruptions", "integer", "", "Pods that may be evicted now.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& pdb, std::chrono::system_clock::time_point now) {
    const json& s = Sub(pdb, "spec");
    return std::vector<json>{registry::MetaString(pdb, "name"), IntOrString(s, "minAvailable"),
                             IntOrString(s, "maxUnavailable"),
                             Int(Sub(pdb, "status"), "disruptionsAllowed"),
                             registry::Age(pdb, now)};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
