#pragma once
// --client-ca-file, --token-auth-file, --anonymous-auth, and service-account tokens:
// --service-account-issuer, --service-account-key-file, --service-account-signing-key-file,
// --api-audiences; request headers set by a front proxy: --requestheader-client-ca-file,
// --requestheader-allowed-names, --requestheader-username-headers,
// --requestheader-group-headers, --requestheader-extra-headers-prefix; remote token
// review: --authentication-token-webhook-config-file, -version, -cache-ttl; bootstrap tokens:
// --enable-bootstrap-token-auth; OpenID Connect: --oidc-issuer-url, --oidc-client-id,
// --oidc-ca-file, --oidc-username-claim, --oidc-username-prefix, --oidc-groups-claim,
// --oidc-groups-prefix, --oidc-required-claim, --oidc-signing-algs.

#include <map>
#include <string>
#include <vector>

#include "pkg/options/flagset.h"
#include "pkg/util/duration.h"

namespace options {

struct AuthenticationOptions {
  std::string client_ca_file;
  std::string token_auth_file;
  bool anonymous_auth = true;
  std::vector<std::string> service_account_issuers;    // default: the in-cluster URL
  std::vector<std::string> service_account_key_files;  // verification keys, besides the signer's
  std::string service_account_signing_key_file;        // default: the generated sa.key
  std::vector<std::string> api_audiences;              // default: the first issuer
  bool service_account_lookup = true;    // tokens valid only while their objects exist
  std::string service_account_jwks_uri;  // issuer discovery's jwks_uri; default: ours
  // Request-header authentication is on when a CA trusts a front proxy: this file, and the
  // generated front-proxy CA unless --proxy-client-cert-file is given. With the generated
  // one, empty lists get kubeadm's values (allowed names only without this file).
  std::string requestheader_client_ca_file;
  std::vector<std::string> requestheader_allowed_names;
  std::vector<std::string> requestheader_username_headers;
  std::vector<std::string> requestheader_group_headers;
  std::vector<std::string> requestheader_extra_headers_prefix;
  std::string token_webhook_config_file;
  std::string token_webhook_version = "v1beta1";
  util::Duration token_webhook_cache_ttl = std::chrono::minutes(2);
  bool enable_bootstrap_token_auth = false;
  std::string oidc_issuer_url;
  std::string oidc_client_id;
  std::string oidc_ca_file;
  std::string oidc_username_claim = "sub";
  std::string oidc_username_prefix;
  std::string oidc_groups_claim;
  std::string oidc_groups_prefix;
  std::map<std::string, std::string> oidc_required_claims;
  std::vector<std::string> oidc_signing_algs = {"RS256"};

  void AddFlags(FlagSet& fs);
  std::vector<std::string> Validate() const;
  // Upstream refuses anonymous requests under AlwaysAllow: it would give them everything.
  // Fills the service-account defaults, and the request-header ones when the front proxy is
  // generated.
  void Complete(const std::vector<std::string>& authorization_modes,
                bool front_proxy_generated = false);
};

}  // namespace options
