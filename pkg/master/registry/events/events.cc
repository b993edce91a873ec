// events.k8s.io/v1 events: the core/v1 events under their newer names (regarding, note,
// reportingController, deprecated* for the old counters), stored as core events and
// converted both ways, so that both APIs see the same objects.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

// The fields that only change names: {events.k8s.io/v1, core/v1}.
constexpr std::pair<const char*, const char*> kRenamed[] = {
    {"regarding", "involvedObject"},
    {"note", "message"},
    {"reportingController", "reportingComponent"},
    {"deprecatedSource", "source"},
    {"deprecatedFirstTimestamp", "firstTimestamp"},
    {"deprecatedLastTimestamp", "lastTimestamp"},
    {"deprecatedCount", "count"},
};
constexpr const char* kSame[] = {"metadata", "eventTime", "series",  "reportingInstance",
                                 "action",   "reason",    "related", "type"};

json Convert(const json& from, const char* api_version, bool to_core) {
  json out = {{"apiVersion", api_version}, {"kind", "Event"}};
  for (const char* key : kSame) {
    if (auto it = from.find(key); it != from.end()) out[key] = *it;
  }
  for (const auto& [events_name, core_name] : kRenamed) {
    const char* in = to_core ? events_name : core_name;
    const char* name = to_core ? core_name : events_name;
    if (auto it = from.find(in); it != from.end() && !it->is_null()) out[name] = *it;
  }
  return out;
}

registry::FieldErrors Validate(const json& event) {
  registry::FieldErrors errors;
  if (event.value("eventTime", json()).is_null()) {
    errors.push_back(v::FieldRequired("eventTime", ""));
  }
  const std::string type = Str(event, "type");
  if (type != "Normal" && type != "Warning") {
    errors.push_back(v::FieldNotSupported("type", type, {"Normal", "Warning"}));
  }
  for (const char* field : {"reportingController", "reportingInstance", "action", "reason"}) {
    if (Str(event, field).empty()) errors.push_back(v::FieldRequired(field, ""));
  }
  if (Str(event, "note").size() > 1024) {
    errors.push_back(v::FieldTooLong("note", 1024));
  }
  return errors;
}

}  // namespace

json EventToCore(const json& event) { return Convert(event, "v1", true); }
json EventFromCore(const json& event) { return Convert(event, "events.k8s.io/v1", false); }

registry::ResourceSpecPtr EventsV1() {
  KindHooks hooks;
  hooks.validate = Validate;
  hooks.garbage_collected = false;
  auto spec = Builtin("events.k8s.io/v1", "events", std::move(hooks));
  spec->short_names = {"ev"};
  spec->storage_prefix = "/events";  // the core events' own
  // Printed and selected as core events are.
  registry::ResourceSpecPtr core = Events();
  spec->columns = core->columns;
  spec->row = [core](const json& event, std::chrono::system_clock::time_point now) {
    return core->row(EventToCore(event), now);
  };
  for (const auto& [field, func] : core->fields) {
    registry::FieldFunc get = func;
    spec->fields[field] = [get](const json& event) { return get(EventToCore(event)); };
  }
  return Finish(std::move(spec));
}

}  // namespace master::resources
