#pragma once
// The core ("master") server: the legacy core group at /api and, later, the built-in
// named groups. Sits between the aggregator and the apiextensions server.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pkg/genericserver/authn/service_account_objects.h"
#include "pkg/genericserver/authz/rbac/policy_index.h"
#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/server/config.h"
#include "pkg/genericserver/server/generic_apiserver.h"
#include "pkg/genericserver/storage/factory.h"
#include "pkg/master/bootstrap/authentication_configmap.h"

namespace admission {
class Stores;
}
namespace authn {
class BootstrapTokenSecrets;
}

namespace master {

// What the core server needs beyond the generic config.
struct Config {
  std::string service_cluster_ip_range = "10.0.0.0/24";  // the primary range
  int node_port_first = 30000;
  int node_port_last = 32767;
  // Service-account tokens (serviceaccounts/token): the PEM private key that signs them,
  // their issuer and default audiences. Without a key there is no token subresource.
  std::string service_account_signing_key;
  std::string service_account_issuer = "https://kubernetes.default.svc.cluster.local";
  std::vector<std::string> api_audiences = {"https://kubernetes.default.svc.cluster.local"};
  // Issuer discovery (/.well-known/openid-configuration, /openid/v1/jwks): the keys that
  // verify tokens (PEM) and --service-account-jwks-uri. Without keys, not served.
  std::vector<std::string> service_account_public_keys;
  std::string service_account_jwks_uri;
  // The RBAC authorizer's policy, when that mode is on: kept up to date from the RBAC
  // resources' watch caches.
  std::shared_ptr<authz::rbac::PolicyIndex> rbac_policy;
  // What the service-account authenticator checks tokens against, when it looks up:
  // kept up to date from the service accounts', Secrets' and pods' watch caches.
  std::shared_ptr<authn::ServiceAccountObjects> service_account_lookup;
  // Fed from the Secrets with --enable-bootstrap-token-auth (else null).
  std::shared_ptr<authn::BootstrapTokenSecrets> bootstrap_tokens;
  // The admission plugins that run (--enable/--disable-admission-plugins, in upstream's
  // order); app::CreateServerChain makes them into `admission`, whose plugins read the
  // stores the master registers in `admission_stores`.
  std::vector<std::string> admission_plugins = {"NamespaceLifecycle"};
  // Their --admission-control-config-file configurations (JSON, by plugin name).
  std::map<std::string, std::string> admission_plugin_configs;
  int64_t default_not_ready_toleration_seconds = 300;  // DefaultTolerationSeconds
  int64_t default_unreachable_toleration_seconds = 300;
  registry::Admission admission;
  std::shared_ptr<::admission::Stores> admission_stores;
  // Written to kube-system/extension-apiserver-authentication after start-up.
  bootstrap::ClusterAuthenticationInfo cluster_authentication;
};

class Instance {
 public:
  // The delegate and the storage must outlive the server.
  static std::unique_ptr<Instance> New(const genericserver::CompletedConfig& config,
                                       genericserver::DelegationTarget& delegate,
                                       storage::StorageFactory& storage, const Config& master = {});
  genericserver::GenericAPIServer& GenericServer() { return *generic_; }

 private:
  std::unique_ptr<genericserver::GenericAPIServer> generic_;
};

}  // namespace master
