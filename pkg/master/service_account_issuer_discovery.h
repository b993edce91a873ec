#pragma once
// Service-account issuer discovery, as upstream: /.well-known/openid-configuration (the
// OIDC provider metadata of the issuer: issuer, jwks_uri, response and subject types, the
// signing algorithms) and /openid/v1/jwks (the public keys that verify service-account
// tokens, as a JSON Web Key Set), so that relying parties outside the cluster can verify
// its tokens. Served only for an https issuer without query or fragment; readable by
// whoever RBAC lets (upstream's system:service-account-issuer-discovery). Rendered once;
// the handlers are immutable.

#include <expected>
#include <string>
#include <vector>

#include "pkg/genericserver/server/generic_apiserver.h"

namespace master {

struct IssuerDiscovery {
  std::string issuer;                    // the first --service-account-issuer
  std::string jwks_uri;                  // empty: https://<external address>/openid/v1/jwks
  std::string external_address;          // host:port
  std::vector<std::string> public_keys;  // PEM, as the authenticator verifies with
};

// Installs both paths on the server's mux, or says why discovery is off.
std::expected<void, std::string> InstallIssuerDiscovery(genericserver::GenericAPIServer& server,
                                                        const IssuerDiscovery& discovery);

}  // namespace master
