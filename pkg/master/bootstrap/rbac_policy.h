#pragma once
// Upstream 1.32's RBAC bootstrap policy: the cluster roles (the policy's and one per
// controller), cluster role bindings, roles and role bindings (kube-system, kube-public)
// that the API server creates and reconciles at every start. The data is
// rbac_bootstrap_policy.json, embedded at build time. Parsed once, immutable afterwards:
// safe from any thread.

#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace master::bootstrap {

struct RBACPolicy {
  std::vector<nlohmann::json> cluster_roles;  // the policy's, then the controllers'
  std::vector<nlohmann::json> cluster_role_bindings;
  std::vector<nlohmann::json> roles;
  std::vector<nlohmann::json> role_bindings;
};

const RBACPolicy& BootstrapRBACPolicy();

// The embedded JSON document (generated from rbac_policy_data.cc.in).
std::string_view RBACPolicyData();

}  // namespace master::bootstrap
