#pragma once
// The audit state of one request being served: what the policy decided and the event being
// filled in. WithAudit makes it and points RequestContext::audit at it when the policy
// records the request; the filters and handlers below add what they know (annotations, the
// impersonated user, the request object). Owned by the request's coroutine: no locking.

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/audit/event.h"
#include "pkg/genericserver/audit/policy.h"

namespace audit {

// Annotation keys of the authorization filter.
inline constexpr char kDecisionAnnotation[] = "authorization.k8s.io/decision";
inline constexpr char kReasonAnnotation[] = "authorization.k8s.io/reason";

class Context {
 public:
  Context(RequestAuditConfig config, Event event)
      : config_(std::move(config)), event_(std::move(event)) {}

  const RequestAuditConfig& config() const { return config_; }
  Level level() const { return config_.level; }
  Event& event() { return event_; }

  // The first value given for a key stays, as upstream keeps it.
  void AddAnnotation(const std::string& key, std::string value);
  void LogImpersonatedUser(const authn::UserInfo& user);
  // The decoded body of a create or update: completes objectRef (name, namespace, uid,
  // resourceVersion) at every level, and is recorded from level Request.
  void LogRequestObject(const nlohmann::json& object);
  // A patch body (JSON) from level Request.
  void LogRequestPatch(const nlohmann::json& patch);

  // The object as the event records it: managedFields dropped when the policy says so (of
  // an object, a list's items, a Table's rows).
  std::string Recorded(const nlohmann::json& object) const;

 private:
  RequestAuditConfig config_;
  Event event_;
};

}  // namespace audit
