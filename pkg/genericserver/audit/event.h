#pragma once
// An audit event (audit.k8s.io/v1 Event): one stage of one request, as the log and webhook
// backends write it. Plain data; the objects it carries are already JSON text, so this
// header needs no JSON library.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/genericserver/audit/policy.h"
#include "pkg/genericserver/authn/user.h"
#include "pkg/util/timestamp.h"

namespace audit {

struct ObjectReference {
  std::string resource, namespace_, name, uid, api_group, api_version, resource_version,
      subresource;
};

// The bounded part of the response's Status (details as JSON text, empty when none).
struct ResponseStatus {
  int code = 0;
  std::string status, message, reason, details;
};

struct Event {
  Level level = Level::kNone;
  std::string audit_id;
  Stage stage = Stage::kRequestReceived;
  std::string request_uri;
  std::string verb;
  authn::UserInfo user;
  std::optional<authn::UserInfo> impersonated_user;
  std::vector<std::string> source_ips;
  std::string user_agent;
  std::optional<ObjectReference> object_ref;
  std::optional<ResponseStatus> response_status;
  std::string request_object;   // JSON; empty when not recorded
  std::string response_object;  // JSON; empty when not recorded
  util::MicroTime request_received{};
  util::MicroTime stage_timestamp{};
  std::map<std::string, std::string> annotations;
};

using EventPtr = std::shared_ptr<const Event>;

// The Event as one line of JSON (no newline), fields in upstream's order.
std::string EncodeJSON(const Event& event);
// The one-line text form of --audit-log-format=legacy.
std::string EncodeLegacy(const Event& event);
// An audit.k8s.io/v1 EventList of the events, as the webhook backend posts it.
std::string EncodeEventList(const std::vector<EventPtr>& events);

}  // namespace audit
