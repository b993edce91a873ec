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

// An authenticator whose tokens name no audience (the token file, bootstrap tokens, OIDC) is
// taken to be for the server's audiences (`implicit`, --api-audiences), as upstream's
// WrapAudienceAgnosticToken: a request for other audiences is not its to answer; a user it
// finds is good for the audiences both name.
AuthenticatorPtr WithImplicitAudiences(std::vector<std::string> implicit,
                                       AuthenticatorPtr authenticator);

}  // namespace authn
