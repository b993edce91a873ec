#pragma once
// The audit policy (audit.k8s.io/v1 Policy, --audit-policy-file): which requests are
// recorded at which level and in which stages. Rules are tried in order and the first that
// matches decides; a request no rule matches is not audited. Values only: safe on any
// thread once loaded.

#include <expected>
#include <optional>
#include <string>
#include <vector>

#include "pkg/genericserver/authn/user.h"
#include "pkg/genericserver/endpoints/request_info.h"

namespace audit {

// Ordered: each level records what the one before it does, and more.
enum class Level { kNone, kMetadata, kRequest, kRequestResponse };
enum class Stage { kRequestReceived, kResponseStarted, kResponseComplete, kPanic };

std::string_view LevelName(Level level);
std::string_view StageName(Stage stage);
std::optional<Level> ParseLevel(std::string_view name);
std::optional<Stage> ParseStage(std::string_view name);

struct GroupResources {
  std::string group;
  // "pods", "pods/log", "*", "*/status", "deployments/*"; empty: every resource of the group.
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
};

struct PolicyRule {
  Level level = Level::kNone;
  std::vector<std::string> users, user_groups, verbs;
  std::vector<GroupResources> resources;
  std::vector<std::string> namespaces;         // "" is the cluster scope
  std::vector<std::string> non_resource_urls;  // a trailing "*" matches a prefix
  std::vector<Stage> omit_stages;
  std::optional<bool> omit_managed_fields;  // unset: the policy's
};

struct Policy {
  std::vector<PolicyRule> rules;
  std::vector<Stage> omit_stages;
  bool omit_managed_fields = false;
};

// What the policy decided for one request.
struct RequestAuditConfig {
  Level level = Level::kNone;
  std::vector<Stage> omit_stages;  // the policy's and the rule's
  bool omit_managed_fields = false;
  bool Omits(Stage stage) const;
};

// The policy in a file's text (YAML or JSON), validated as upstream validates it: every
// problem in one message.
std::expected<Policy, std::string> ParsePolicy(std::string_view text);
std::expected<Policy, std::string> LoadPolicyFile(const std::string& path);

// `user` is null for a request whose authentication failed.
RequestAuditConfig Evaluate(const Policy& policy, const authn::UserInfo* user,
                            const endpoints::RequestInfo& info);

}  // namespace audit
