#pragma once
// --client-ca-file, --token-auth-file, --anonymous-auth, and service-account tokens:
// --service-account-issuer, --service-account-key-file, --service-account-signing-key-file,
// --api-audiences.

#include <string>
#include <vector>

#include "pkg/options/flagset.h"

namespace options {

struct AuthenticationOptions {
  std::string client_ca_file;
  std::string token_auth_file;
  bool anonymous_auth = true;
  std::vector<std::string> service_account_issuers;    // default: the in-cluster URL
  std::vector<std::string> service_account_key_files;  // verification keys, besides the signer's
  std::string service_account_signing_key_file;        // default: the generated sa.key
  std::vector<std::string> api_audiences;              // default: the first issuer

  void AddFlags(FlagSet& fs);
  std::vector<std::string> Validate() const;
  // Upstream refuses anonymous requests under AlwaysAllow: it would give them everything.
  // Fills the service-account defaults.
  void Complete(const std::vector<std::string>& authorization_modes);
};

}  // namespace options
