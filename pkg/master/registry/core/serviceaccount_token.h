#pragma once
// serviceaccounts/token: TokenRequests answered with signed service-account tokens.

#include <string>
#include <vector>

#include "pkg/genericserver/registry/resource_spec.h"

namespace registry {
class Store;
}

namespace master::resources {

struct TokenSigner {
  std::string signing_key;  // PEM private key
  std::string issuer;
  std::vector<std::string> api_audiences;  // when the request names none
  // What a token may be bound to, read to check it exists (and take its uid), as upstream.
  std::shared_ptr<registry::Store> pods, secrets, nodes;
};

registry::Subresource ServiceAccountToken(TokenSigner signer);

}  // namespace master::resources
