// scheduling.k8s.io/v1 priority classes: cluster-scoped; names starting with "system-"
// are reserved for the two built-in classes, created at start-up; the value and the
// preemption policy do not change.
#include <optional>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/core/pod_defaults.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

constexpr int64_t kHighestUserPriority = 1000000000;

// Why a "system-" class is not one of the two the system creates (upstream's
// IsKnownSystemPriorityClass), or std::nullopt when it is.
std::optional<std::string> UnknownSystemClass(const std::string& name, int64_t value,
                                              bool global_default) {
  for (const auto& [known, known_value] :
       {std::pair{"system-node-critical", 2000001000}, {"system-cluster-critical", 2000000000}}) {
    if (name != known) continue;
    if (value != known_value) {
      return "value of " + name + " PriorityClass must be " + std::to_string(known_value);
    }
    if (global_default) return "globalDefault of " + name + " PriorityClass must be false";
    return std::nullopt;
  }
  return name + " is not a known system priority class";
}

registry::FieldErrors Validate(const json& pc) {
  registry::FieldErrors errors;
  const std::string name = registry::MetaString(pc, "name");
  const int64_t value = Int(pc, "value");
  if (name.starts_with("system-")) {
    if (auto why = UnknownSystemClass(name, value, pc.value("globalDefault", false) == true)) {
      errors.push_back(
          v::FieldForbidden("metadata.name",
                            "priority class names with 'system-' prefix are reserved for system "
                            "use only. error: " +
                                *why));
    }
  } else if (value > kHighestUserPriority) {
    errors.push_back(
        v::FieldForbidden("value", "maximum allowed value of a user defined priority is " +
                                       std::to_string(kHighestUserPriority)));
  }
  const std::string policy = Str(pc, "preemptionPolicy");
  if (policy != "PreemptLowerPriority" && policy != "Never") {
    errors.push_back(
        v::FieldNotSupported("preemptionPolicy", policy, {"Never", "PreemptLowerPriority"}));
  }
  return errors;
}

registry::FieldErrors ValidateUpdate(const json& pc, const json& old) {
  registry::FieldErrors errors;
  if (pc.value("value", json()) != old.value("value", json())) {
    errors.push_back(v::FieldForbidden("value", "may not be changed in an update."));
  }
  if (pc.value("preemptionPolicy", json()) != old.value("preemptionPolicy", json())) {
    errors.push_back(
        v::FieldInvalid("preemptionPolicy", Str(pc, "preemptionPolicy"), "field is immutable"));
  }
  return errors;
}

}  // namespace

registry::ResourceSpecPtr PriorityClasses() {
  KindHooks hooks;
  hooks.defaults = [](json& pc) { SetDefault(pc, "preemptionPolicy", "PreemptLowerPriority"); };
  hooks.validate = Validate;
  hooks.validate_update = ValidateUpdate;
  auto spec = Builtin("scheduling.k8s.io/v1", "priorityclasses", std::move(hooks));
  spec->short_names = {"pc"};
  spec->columns = {
      registry::NameColumn(),
      {"Value", "integer", "", "The priority pods of the class get.", 0},
      {"Global-Default", "boolean", "", "Whether pods without a class get this one.", 0},
      registry::AgeColumn(),
      {"PreemptionPolicy", "string", "", "Whether the class's pods preempt others.", 0},
  };
  spec->row = [](const json& pc, std::chrono::system_clock::time_point now) {
    return std::vector<json>{registry::MetaString(pc, "name"), Int(pc, "value"),
                             pc.value("globalDefault", false) == true, registry::Age(pc, now),
                             Str(pc, "preemptionPolicy")};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
