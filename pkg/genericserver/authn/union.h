#pragma once
// Combines the configured authenticators the way kube-apiserver does:
//  - each is asked in order; the first user wins;
//  - if none knows the request and any rejected its credentials, the request fails (401);
//  - a bearer token none accepts is rejected (kInvalidBearerToken), as upstream rejects it;
//  - if none knows it and none rejected it, anonymous (when enabled) makes it
//    system:anonymous in system:unauthenticated; otherwise it fails (401);
//  - authenticated users get the system:authenticated group.

#include <vector>

#include "pkg/genericserver/authn/authenticator.h"

namespace authn {

// The error of a bearer token no authenticator claims (upstream's wording).
inline constexpr char kInvalidBearerToken[] = "invalid bearer token";

AuthenticatorPtr NewUnionAuthenticator(std::vector<AuthenticatorPtr> authenticators,
                                       bool anonymous);

}  // namespace authn
