#pragma once
// --client-ca-file, --token-auth-file, --anonymous-auth.

#include <string>
#include <vector>

#include "pkg/options/flagset.h"

namespace options {

struct AuthenticationOptions {
  std::string client_ca_file;
  std::string token_auth_file;
  bool anonymous_auth = true;

  void AddFlags(FlagSet& fs);
  std::vector<std::string> Validate() const;
  // Upstream refuses anonymous requests under AlwaysAllow: it would give them everything.
  void Complete(const std::vector<std::string>& authorization_modes);
};

}  // namespace options
