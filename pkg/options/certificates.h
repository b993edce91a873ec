#pragma once
// The certificates a first start generates and a restart reuses, under --cert-dir:
//   ca.crt/ca.key               the CA (10 years); trusted for client certificates
//   apiserver.crt/apiserver.key serving certificate (1 year), unless --tls-cert-file
//   admin.crt/admin.key         client certificate CN=admin, O=system:masters (1 year)
//   sa.key                      the key that signs service-account tokens (kept as is)
// A leaf is made again when it is missing, does not match its key or the CA, expires
// within 30 days, or (serving) lacks a host name or address it must cover.

#include <expected>
#include <string>
#include <vector>

namespace options {

struct PKIRequest {
  std::string cert_dir;
  bool generate_serving = true;
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
  std::string service_account_key;
};

std::expected<PKIFiles, std::string> EnsurePKI(const PKIRequest& request);

}  // namespace options
