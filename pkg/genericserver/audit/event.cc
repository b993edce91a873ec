#include "pkg/genericserver/audit/event.h"

#include <nlohmann/json.hpp>

#include "pkg/util/strings.h"

namespace audit {
namespace {

// Appends `"key":value` pairs; the caller writes the braces.
class Fields {
 public:
  explicit Fields(std::string& out) : out_(out) {}
  void Raw(std::string_view key, std::string_view json) {
    if (!first_) out_ += ',';
    first_ = false;
    out_ += '"';
    out_ += key;
    out_ += "\":";
    out_ += json;
  }
  void String(std::string_view key, std::string_view value) {
    Raw(key, nlohmann::json(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
  // omitempty
  void NonEmpty(std::string_view key, std::string_view value) {
    if (!value.empty()) String(key, value);
  }
  void Strings(std::string_view key, const std::vector<std::string>& values) {
    if (!values.empty()) Raw(key, nlohmann::json(values).dump());
  }

 private:
  std::string& out_;
  bool first_ = true;
};

std::string User(const authn::UserInfo& user) {
  std::string out = "{";
  Fields f(out);
  f.NonEmpty("username", user.name);
  f.NonEmpty("uid", user.uid);
  f.Strings("groups", user.groups);
  if (!user.extra.empty()) f.Raw("extra", nlohmann::json(user.extra).dump());
  return out + "}";
}

std::string ObjectRef(const ObjectReference& ref) {
  std::string out = "{";
  Fields f(out);
  f.NonEmpty("resource", ref.resource);
  f.NonEmpty("namespace", ref.namespace_);
  f.NonEmpty("name", ref.name);
  f.NonEmpty("uid", ref.uid);
  f.NonEmpty("apiGroup", ref.api_group);
  f.NonEmpty("apiVersion", ref.api_version);
  f.NonEmpty("resourceVersion", ref.resource_version);
  f.NonEmpty("subresource", ref.subresource);
  return out + "}";
}

std::string Status(const ResponseStatus& s) {
  std::string out = "{";
  Fields f(out);
  f.Raw("metadata", "{}");
  f.NonEmpty("status", s.status);
  f.NonEmpty("message", s.message);
  f.NonEmpty("reason", s.reason);
  if (!s.details.empty()) f.Raw("details", s.details);
  if (s.code != 0) f.Raw("code", std::to_string(s.code));
  return out + "}";
}

void Body(std::string& out, const Event& e) {
  Fields f(out);
  f.Raw("kind", "\"Event\"");
  f.Raw("apiVersion", "\"audit.k8s.io/v1\"");
  f.String("level", LevelName(e.level));
  f.String("auditID", e.audit_id);
  f.String("stage", StageName(e.stage));
  f.String("requestURI", e.request_uri);
  f.String("verb", e.verb);
  f.Raw("user", User(e.user));
  if (e.impersonated_user) f.Raw("impersonatedUser", User(*e.impersonated_user));
  f.Strings("sourceIPs", e.source_ips);
  f.NonEmpty("userAgent", e.user_agent);
  if (e.object_ref) f.Raw("objectRef", ObjectRef(*e.object_ref));
  if (e.response_status) f.Raw("responseStatus", Status(*e.response_status));
  if (!e.request_object.empty()) f.Raw("requestObject", e.request_object);
  if (!e.response_object.empty()) f.Raw("responseObject", e.response_object);
  f.String("requestReceivedTimestamp", util::FormatMicroTime(e.request_received));
  f.String("stageTimestamp", util::FormatMicroTime(e.stage_timestamp));
  if (!e.annotations.empty()) f.Raw("annotations", nlohmann::json(e.annotations).dump());
}

// Go's %q of each, joined by commas.
std::string QuotedList(const std::vector<std::string>& list) {
  std::vector<std::string> quoted;
  for (const std::string& s : list) quoted.push_back(util::Quote(s));
  return util::Join(quoted, ",");
}

}  // namespace

std::string EncodeJSON(const Event& event) {
  std::string out = "{";
  Body(out, event);
  return out + "}";
}

std::string EncodeLegacy(const Event& e) {
  std::string user = "<none>", groups = "<none>";
  if (!e.user.name.empty()) {
    user = e.user.name;
    if (!e.user.groups.empty()) groups = QuotedList(e.user.groups);
  }
  std::string as = "<self>", as_groups = "<lookup>";
  if (e.impersonated_user) {
    as = e.impersonated_user->name;
    if (!e.impersonated_user->groups.empty()) as_groups = QuotedList(e.impersonated_user->groups);
  }
  const std::string ns =
      e.object_ref && !e.object_ref->namespace_.empty() ? e.object_ref->namespace_ : "<none>";
  const std::string response =
      e.response_status ? std::to_string(e.response_status->code) : "<deferred>";
  const std::string ip = e.source_ips.empty() ? "<unknown>" : e.source_ips.front();
  std::string line = util::FormatMicroTime(e.request_received) +
                     " AUDIT: id=" + util::Quote(e.audit_id) +
                     " stage=" + util::Quote(StageName(e.stage)) + " ip=" + util::Quote(ip) +
                     " method=" + util::Quote(e.verb) + " user=" + util::Quote(user) +
                     " groups=" + util::Quote(groups) + " as=" + util::Quote(as) +
                     " asgroups=" + util::Quote(as_groups) +
                     " user-agent=" + util::Quote(e.user_agent) + " namespace=" + util::Quote(ns) +
                     " uri=" + util::Quote(e.request_uri) + " response=\"" + response + "\"";
  for (const auto& [key, value] : e.annotations) line += " " + key + "=" + util::Quote(value);
  return line;
}

std::string EncodeEventList(const std::vector<EventPtr>& events) {
  std::string out = R"({"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[)";
  for (size_t i = 0; i < events.size(); ++i) {
    if (i) out += ',';
    out += EncodeJSON(*events[i]);
  }
  return out + "]}";
}

}  // namespace audit
