// core/v1 events: what happened to an object (involvedObject), selectable by its fields,
// printed as kubectl shows events (LAST SEEN, TYPE, REASON, OBJECT, MESSAGE).
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"
#include "pkg/util/strings.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

std::string Since(const std::string& timestamp, std::chrono::system_clock::time_point now) {
  auto t = registry::ParseTime(timestamp);
  return t ? registry::HumanDuration(now - *t) : "<unknown>";
}

std::string FirstSeen(const json& event, std::chrono::system_clock::time_point now) {
  const std::string first = Str(event, "firstTimestamp");
  return Since(first.empty() ? Str(event, "eventTime") : first, now);
}

// Upstream's printer: the series' last observation, else lastTimestamp, else what FIRST SEEN
// shows.
std::string LastSeen(const json& event, std::chrono::system_clock::time_point now) {
  const std::string series = Str(Sub(event, "series"), "lastObservedTime");
  if (!series.empty()) return Since(series, now);
  const std::string last = Str(event, "lastTimestamp");
  return last.empty() ? FirstSeen(event, now) : Since(last, now);
}

std::string Source(const json& event) {
  const json& source = Sub(event, "source");
  std::string component = Str(source, "component");
  std::string host = Str(source, "host");
  if (component.empty()) {
    component = Str(event, "reportingComponent");
    host = Str(event, "reportingInstance");
  }
  return host.empty() ? component : component + ", " + host;
}

int64_t EventCount(const json& event) {
  const json& series = Sub(event, "series");
  if (series.contains("count") && series["count"].is_number_integer()) return series["count"];
  auto it = event.find("count");
  const int64_t count = it != event.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
  return count == 0 ? 1 : count;  // a singleton event of the new API has no count
}

std::vector<json> Row(const json& event, std::chrono::system_clock::time_point now) {
  const json& involved = Sub(event, "involvedObject");
  return {LastSeen(event, now),
          Str(event, "type"),
          Str(event, "reason"),
          util::ToLower(Str(involved, "kind")) + "/" + Str(involved, "name"),
          Str(involved, "fieldPath"),
          Source(event),
          Str(event, "message"),
          FirstSeen(event, now),
          EventCount(event),
          registry::MetaString(event, "name")};
}

class EventStrategy final : public registry::Strategy {
 public:
  // As upstream: a PUT may create an event, and a deletion policy does not keep one.
  bool AllowCreateOnUpdate() const override { return true; }
  bool GarbageCollected() const override { return false; }
  // core/v1 events have no name rule of their own (events.k8s.io/v1 ones are subdomains).
  apimachinery::validation::NameRule Names() const override {
    return apimachinery::validation::NameRule::kNone;
  }
  // Upstream's legacy event rule: the involved object lives in the event's namespace
  // (or, for cluster-scoped objects, the event is in "default" or has none).
  registry::FieldErrors Validate(const json& event) const override {
    registry::FieldErrors errors;
    const std::string ns = registry::MetaString(event, "namespace");
    const std::string involved_ns = Str(Sub(event, "involvedObject"), "namespace");
    const bool mismatch =
        involved_ns.empty() ? (ns != "default" && !ns.empty()) : ns != involved_ns;
    if (mismatch) {
      errors.push_back(v::FieldInvalid("involvedObject.namespace", involved_ns,
                                       "does not match event.namespace"));
    }
    if (!Str(event, "eventTime").empty()) {
      // The events.k8s.io form: who reported it and what it was about.
      if (Str(event, "reportingComponent").empty()) {
        errors.push_back(v::FieldRequired("reportingController", ""));
      }
      if (Str(event, "reportingInstance").empty()) {
        errors.push_back(v::FieldRequired("reportingInstance", ""));
      }
      if (Str(event, "action").empty()) errors.push_back(v::FieldRequired("action", ""));
      const std::string type = Str(event, "type");
      if (type != "Normal" && type != "Warning") {
        errors.push_back(v::FieldInvalid("type", type, "has invalid value: " + type));
      }
    }
    return errors;
  }
};

}  // namespace

registry::ResourceSpecPtr Events() {
  auto spec = std::make_shared<registry::ResourceSpec>();
  spec->version = "v1";
  spec->kind = "Event";
  spec->plural = "events";
  spec->short_names = {"ev"};
  spec->strategy = std::make_shared<EventStrategy>();
  spec->columns = {
      {"Last Seen", "string", "", "How long ago the event was last seen.", 0},
      {"Type", "string", "", "Normal or Warning.", 0},
      {"Reason", "string", "", "A short machine-readable cause.", 0},
      {"Object", "string", "", "The kind and name of the object concerned.", 0},
      {"Subobject", "string", "", "The field of that object concerned, if any.", 1},
      {"Source", "string", "", "The component (and host) that reported it.", 1},
      {"Message", "string", "", "What happened, for people.", 0},
      {"First Seen", "string", "", "How long ago the event was first seen.", 1},
      {"Count", "string", "", "How many times it was seen.", 1},
      registry::NameColumn(1),
  };
  spec->row = Row;
  auto involved = [](const char* field) {
    return [field](const json& event) { return Str(Sub(event, "involvedObject"), field); };
  };
  spec->fields["involvedObject.kind"] = involved("kind");
  spec->fields["involvedObject.namespace"] = involved("namespace");
  spec->fields["involvedObject.name"] = involved("name");
  spec->fields["involvedObject.uid"] = involved("uid");
  spec->fields["involvedObject.apiVersion"] = involved("apiVersion");
  spec->fields["involvedObject.resourceVersion"] = involved("resourceVersion");
  spec->fields["involvedObject.fieldPath"] = involved("fieldPath");
  spec->fields["reason"] = [](const json& e) { return Str(e, "reason"); };
  spec->fields["reportingComponent"] = [](const json& e) { return Str(e, "reportingComponent"); };
  spec->fields["source"] = [](const json& e) { return Str(Sub(e, "source"), "component"); };
  spec->fields["type"] = [](const json& e) { return Str(e, "type"); };
  return Finish(std::move(spec));
}

}  // namespace master::resources
