#pragma once
// serviceaccounts/token: TokenRequests answered with signed service-account tokens.

#include <string>
#include <vector>

#include "pkg/genericserver/registry/resource_spec.h"

namespace master::resources {

struct TokenSigner {
  std::string signing_key;  // PEM private key
  std::string issuer;
  std::vector<std::string> api_audiences;  // when the request names none
};

registry::Subresource ServiceAccountToken(TokenSigner signer);

}  // namespace master::resources
