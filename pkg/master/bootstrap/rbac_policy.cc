#include "pkg/master/bootstrap/rbac_policy.h"

namespace master::bootstrap {

const RBACPolicy& BootstrapRBACPolicy() {
  static const RBACPolicy policy = [] {
    const nlohmann::json doc = nlohmann::json::parse(RBACPolicyData());
    RBACPolicy p;
    auto append = [&doc](std::vector<nlohmann::json>& to, const char* key) {
      for (const nlohmann::json& item : doc.at(key)) to.push_back(item);
    };
    append(p.cluster_roles, "clusterRoles");
    append(p.cluster_roles, "controllerRoles");
    append(p.cluster_role_bindings, "clusterRoleBindings");
    append(p.cluster_role_bindings, "controllerRoleBindings");
    append(p.roles, "roles");
    append(p.role_bindings, "roleBindings");
    return p;
  }();
  return policy;
}

}  // namespace master::bootstrap
