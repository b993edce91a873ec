#pragma once
// The certificates a first start generates and a restart reuses, under --cert-dir:
//   ca.crt/ca.key               the CA (10 years); trusted for client certificates
//   apiserver.crt/apiserver.key serving certificate (1 year), unless --tls-cert-file
//   admin.crt/admin.key         client certificate CN=admin, O=system:masters (1 year)
//   controller-manager.crt/.key client certificate CN=system:kube-controller-manager
//                               (1 year), for kube-controller-manager's kubeconfig
//   sa.key                      the key that signs service-account tokens (kept as is)
//   front-proxy-ca.crt/.key     a second CA (10 years), trusted only for request headers
//   front-proxy-client.crt/.key client certificate CN=front-proxy-client (1 year) signed by
//                               it, that the aggregator presents to extension API servers;
//                               both unless --proxy-client-cert-file
// A leaf is made again when it is missing, does not match its key or its CA, expires
// within 30 days, or (serving) lacks a host name or address it must cover. A CA is kept
// until it is removed (a new CA makes its leaves again).

#include <expected>
#include <string>
#include <vector>

namespace options {

struct PKIRequest {
  std::string cert_dir;
  bool generate_serving = true;
  bool generate_front_proxy = true;
  std::vector<std::string> dns_names;  // the serving certificate must cover these...
  std::vector<std::string> ips;        // ...and these
};

struct PKIFiles {
  std::string ca_cert;
  std::string ca_key;
  std::string serving_cert;  // empty when not generated
  std::string serving_key;
  std::string admin_cert;
  std::string admin_key;
  std::string controller_manager_cert;
  std::string controller_manager_key;
  std::string service_account_key;
  std::string front_proxy_ca_cert;  // these four empty when not generated
  std::string front_proxy_ca_key;
  std::string front_proxy_client_cert;
  std::string front_proxy_client_key;
};

// The common name of the generated front-proxy client certificate (kubeadm's).
inline constexpr char kFrontProxyClientName[] = "front-proxy-client";
// The controller manager's user, as upstream's bootstrap RBAC policy names it.
inline constexpr char kControllerManagerUser[] = "system:kube-controller-manager";

std::expected<PKIFiles, std::string> EnsurePKI(const PKIRequest& request);

}  // namespace options
