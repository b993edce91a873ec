#pragma once
// Service-account tokens: the signed JWTs kube-apiserver issues through the TokenRequest
// API (what `kubectl create token` prints and what the kubelet projects into pods), and
// the bearer-token authenticator that accepts them.
//
// A token is a compact JWS whose header names the algorithm (RS256 for an RSA key;
// ES256/ES384/ES512 for an EC key on P-256/P-384/P-521) and a key ID derived from the
// public key, so that a verifier holding several keys can pick the right one. Its claims
// are upstream's: the registered ones (aud, exp, iat, iss, jti, nbf, sub) plus a
// "kubernetes.io" object naming the namespace, the service account and the object the
// token is bound to.
//
// Like upstream, verification accepts a minute of clock skew on exp, nbf and iat. With a
// lookup (--service-account-lookup, the default), the service account and the bound pod or
// Secret (or a legacy token's Secret) must still exist, with the uids the token names.

#include <chrono>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/genericserver/authn/authenticator.h"
#include "pkg/genericserver/authn/service_account_objects.h"

namespace authn {

// What a token says. The caller fills every field; times are kept to whole seconds.
struct ServiceAccountClaims {
  std::string issuer;
  std::vector<std::string> audiences;
  std::string ns, name, uid;  // the service account
  // The token is not valid before issued_at (nbf equals iat) nor after expires_at.
  std::chrono::system_clock::time_point issued_at, expires_at;
  std::string jti;  // a fresh UUID from the caller; omitted when empty
  // The object the token is bound to: kind "Pod", "Secret" or "Node", or an empty kind
  // for a token bound to nothing but its expiry.
  std::string bound_kind, bound_name, bound_uid;
  // A pod's node (spec.nodeName, and its uid when the node exists), in a pod-bound token.
  std::string pod_node_name, pod_node_uid;
};

// Signs the claims with a PEM private key (PKCS#1 "RSA PRIVATE KEY", SEC 1 "EC PRIVATE
// KEY" or PKCS#8 "PRIVATE KEY"), returning the compact serialization
// header.payload.signature. Errors name what is wrong with the key or the claims.
std::expected<std::string, std::string> SignServiceAccountToken(const ServiceAccountClaims& claims,
                                                                std::string_view private_key_pem);

// A legacy (Secret-based) token, as the serviceaccount-token controller writes into Secrets
// of type kubernetes.io/service-account-token: issuer "kubernetes/serviceaccount", the
// account and its Secret named in flat private claims, no expiry and no audience.
inline constexpr char kLegacyIssuer[] = "kubernetes/serviceaccount";
struct LegacyServiceAccountClaims {
  std::string ns, name, uid;  // the service account
  std::string secret_name;
};
std::expected<std::string, std::string> SignLegacyServiceAccountToken(
    const LegacyServiceAccountClaims& claims, std::string_view private_key_pem);

// The "-----BEGIN PUBLIC KEY-----" PEM (SubjectPublicKeyInfo) of a private key PEM: what a
// verifier needs to check the tokens that key signs.
std::expected<std::string, std::string> PublicKeyOf(std::string_view private_key_pem);

// Authenticates "Authorization: Bearer <jwt>" service-account tokens.
//  - public_keys_pem: each string holds one or more PEM blocks: public keys ("PUBLIC KEY"),
//    certificates, or private keys (their public half is used), RSA or EC, as upstream's
//    --service-account-key-file accepts. Blocks that are none of these are skipped.
//  - issuers: the accepted "iss" values besides kLegacyIssuer, which is always accepted (as
//    upstream); a token from another issuer is left to the other authenticators
//    (std::nullopt), as is anything that is not a compact JWS.
//  - api_audiences: the token's "aud" must share one of these (a token without "aud" is
//    taken to be for them); when empty, any audience is accepted.
//  - lookup: what exists (null: nothing is looked up, a token stays valid until it expires).
// A token from an accepted issuer that fails any check is an error (401).
AuthenticatorPtr NewServiceAccountTokenAuthenticator(
    std::vector<std::string> public_keys_pem, std::vector<std::string> issuers,
    std::vector<std::string> api_audiences,
    std::shared_ptr<const ServiceAccountObjects> lookup = nullptr);

}  // namespace authn
