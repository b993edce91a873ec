#pragma once
// Authorizers decide whether a user may do what a request asks. Implementations are
// immutable after construction and safe to call from any thread; a decision is awaited
// (a webhook asks a remote service), on the caller's executor.

#include <memory>
#include <string>
#include <vector>

#include "pkg/genericserver/apimachinery/status.h"
#include "pkg/genericserver/authn/user.h"
#include "pkg/genericserver/endpoints/request_info.h"
#include "pkg/genericserver/server/awaitable.h"

namespace authz {

struct Attributes {
  const authn::UserInfo& user;
  const endpoints::RequestInfo& request;
};

enum class Decision { kNoOpinion, kAllow, kDeny };

struct AuthorizationResult {
  Decision decision = Decision::kNoOpinion;
  std::string reason;  // shown to the user after the forbidden message, when not empty
  // Why an authorizer could not decide (a webhook that did not answer). Unless another one
  // allows, the request is answered 500 with it, as upstream answers.
  std::string error;
};

// What a user may do in a namespace, as SelfSubjectRulesReview reports it.
struct ResourceRule {
  std::vector<std::string> verbs, api_groups, resources, resource_names;
  bool operator==(const ResourceRule&) const = default;
};
struct NonResourceRule {
  std::vector<std::string> verbs, non_resource_urls;
  bool operator==(const NonResourceRule&) const = default;
};
struct Rules {
  std::vector<ResourceRule> resource_rules;
  std::vector<NonResourceRule> non_resource_rules;
  bool incomplete = false;  // an authorizer could not list what it allows
  std::string evaluation_error;
};

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  // attributes must outlive the await.
  virtual Awaitable<AuthorizationResult> Authorize(const Attributes& attributes) const = 0;
  // The rules the authorizer grants the user in the namespace; none by default.
  virtual Rules RulesFor(const authn::UserInfo& user, std::string_view ns) const;
};
using AuthorizerPtr = std::shared_ptr<const Authorizer>;

// The authorization modes --authorization-mode accepts.
inline constexpr char kModeAlwaysAllow[] = "AlwaysAllow";
inline constexpr char kModeAlwaysDeny[] = "AlwaysDeny";
inline constexpr char kModeRBAC[] = "RBAC";
inline constexpr char kModeWebhook[] = "Webhook";

AuthorizerPtr NewAlwaysAllow();
AuthorizerPtr NewAlwaysDeny();
// Allows members of any of the groups everything (system:masters).
AuthorizerPtr NewPrivilegedGroups(std::vector<std::string> groups);
// Asks each in order; the first Allow or Deny decides.
AuthorizerPtr NewUnion(std::vector<AuthorizerPtr> authorizers);
namespace rbac {
class PolicyIndex;
}
// Builds the chain for the given modes: system:masters first, then the modes in order.
// AlwaysAllow allows anonymous users only the public information paths (RBAC gives them
// what the policy binds to system:unauthenticated). RBAC decides from `policy`, Webhook is
// `webhook` (pkg/plugin/authorizer/webhook.h).
AuthorizerPtr NewFromModes(const std::vector<std::string>& modes,
                           std::shared_ptr<const rbac::PolicyIndex> policy = nullptr,
                           AuthorizerPtr webhook = nullptr);

// "User \"u\" cannot get path \"/x\"" or "User \"u\" cannot list resource \"pods\" in
// API group \"\" in the namespace \"ns\"", as kube-apiserver words it.
std::string ForbiddenMessage(const Attributes& attributes);
// The 403 Status of a refusal: that message, then ": <reason>" when the authorizers gave one.
apimachinery::Status Forbidden(const Attributes& attributes, const std::string& reason);

}  // namespace authz
