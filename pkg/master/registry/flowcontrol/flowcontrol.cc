// flowcontrol.apiserver.k8s.io/v1: flow schemas and priority level configurations,
// stored with upstream's defaults (precedence 1000; 30 nominal shares, 64 queues, hand
// size 8, queue length 50). Requests are not yet scheduled by them.
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

constexpr char kGroupVersion[] = "flowcontrol.apiserver.k8s.io/v1";

std::string OrNone(std::string s) { return s.empty() ? "<none>" : s; }

void DefaultPriorityLevel(json& plc) {
  json& spec = Child(plc, "spec");
  if (auto limited = spec.find("limited"); limited != spec.end() && limited->is_object()) {
    SetDefault(*limited, "nominalConcurrencyShares", 30);
    SetDefault(*limited, "lendablePercent", 0);
    json& response = Child(*limited, "limitResponse");
    if (Str(response, "type") == "Queue") {
      json& queuing = Child(response, "queuing");
      SetDefault(queuing, "queues", 64);
      SetDefault(queuing, "handSize", 8);
      SetDefault(queuing, "queueLengthLimit", 50);
    }
  }
  if (auto exempt = spec.find("exempt"); exempt != spec.end() && exempt->is_object()) {
    SetDefault(*exempt, "nominalConcurrencyShares", 0);
    SetDefault(*exempt, "lendablePercent", 0);
  }
}

}  // namespace

registry::ResourceSpecPtr FlowSchemas() {
  KindHooks hooks;
  hooks.status.stored_metadata = registry::kResetObjectMetaForStatus;
  hooks.defaults = [](json& fs) {
    json& spec = Child(fs, "spec");
    if (Int(spec, "matchingPrecedence") == 0) spec["matchingPrecedence"] = 1000;
  };
  hooks.validate = [](const json& fs) {
    registry::FieldErrors errors;
    const json& spec = Sub(fs, "spec");
    if (Str(Sub(spec, "priorityLevelConfiguration"), "name").empty()) {
      errors.push_back(v::FieldRequired("spec.priorityLevelConfiguration.name",
                                        "must reference a priority level"));
    }
    const int64_t precedence = Int(spec, "matchingPrecedence");
    if (precedence < 1 || precedence > 10000) {
      errors.push_back(v::FieldInvalid("spec.matchingPrecedence", std::to_string(precedence),
                                       "must be between 1 and 10000, inclusive"));
      errors.back().value_form = v::ValueForm::kVerbatim;
    }
    return errors;
  };
  hooks.generation = true;
  auto spec = Builtin(kGroupVersion, "flowschemas", std::move(hooks));
  spec->columns = {
      registry::NameColumn(),
      {"PriorityLevel", "string", "", "The priority level the matched requests go to.", 0},
      {"MatchingPrecedence", "string", "", "Lower values are matched first.", 0},
      {"DistinguisherMethod", "string", "", "How flows are told apart.", 0},
      registry::AgeColumn(),
      {"MissingPL", "string", "", "Whether the priority level does not exist.", 0},
  };
  spec->row = [](const json& fs, std::chrono::system_clock::time_point now) {
    const json& s = Sub(fs, "spec");
    std::string missing = "?";
    for (const json& c : List(Sub(fs, "status"), "conditions")) {
      if (Str(c, "type") == "Dangling") missing = Str(c, "status");
    }
    return std::vector<json>{registry::MetaString(fs, "name"),
                             Str(Sub(s, "priorityLevelConfiguration"), "name"),
                             std::to_string(Int(s, "matchingPrecedence")),
                             OrNone(Str(Sub(s, "distinguisherMethod"), "type")),
                             registry::Age(fs, now),
                             missing};
  };
  return Finish(std::move(spec));
}

registry::ResourceSpecPtr PriorityLevelConfigurations() {
  KindHooks hooks;
  hooks.status.stored_metadata = registry::kResetObjectMetaForStatus;
  hooks.defaults = DefaultPriorityLevel;
  hooks.validate = [](const json& plc) {
    registry::FieldErrors errors;
    const std::string type = Str(Sub(plc, "spec"), "type");
    if (type != "Exempt" && type != "Limited") {
      errors.push_back(v::FieldNotSupported("spec.type", type, {"Exempt", "Limited"}));
    }
    return errors;
  };
  hooks.generation = true;
  auto spec = Builtin(kGroupVersion, "prioritylevelconfigurations", std::move(hooks));
  spec->columns = {
      registry::NameColumn(),
      {"Type", "string", "", "Exempt or Limited.", 0},
      {"NominalConcurrencyShares", "string", "", "The level's share of the server's seats.", 0},
      {"Queues", "string", "", "How many queues requests wait in.", 0},
      {"HandSize", "string", "", "How many queues a flow may use.", 0},
      {"QueueLengthLimit", "string", "", "How many requests a queue holds.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& plc, std::chrono::system_clock::time_point now) {
    const json& s = Sub(plc, "spec");
    const json& limited = Sub(s, "limited");
    const json& queuing = Sub(Sub(limited, "limitResponse"), "queuing");
    const bool queued = Str(Sub(limited, "limitResponse"), "type") == "Queue";
    auto number = [](const json& object, const char* key) {
      return object.contains(key) ? std::to_string(Int(object, key)) : std::string("<none>");
    };
    return std::vector<json>{registry::MetaString(plc, "name"),
                             Str(s, "type"),
                             Str(s, "type") == "Limited"
                                 ? number(limited, "nominalConcurrencyShares")
                                 : std::string("<none>"),
                             queued ? number(queuing, "queues") : std::string("<none>"),
                             queued ? number(queuing, "handSize") : std::string("<none>"),
                             queued ? number(queuing, "queueLengthLimit") : std::string("<none>"),
                             registry::Age(plc, now)};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
