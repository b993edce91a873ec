#pragma once
// JSON Web Signatures as upstream's go-jose makes and checks them, for service-account
// tokens: RSA and EC keys from PEM, the key ID upstream derives, RS256/PS256/ES256-style
// signing and verification, and the three parts of a compact serialization. JSON stays
// with the caller.

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/openssl.h"

namespace authn::jws {

using util::openssl::Pkey;

// The first private key in PEM data, which must be RSA or EC (what upstream signs with).
std::expected<Pkey, std::string> ReadPrivateKey(std::string_view pem);
// Every RSA or EC public key in PEM data, each block read as a private key, a public key
// or a certificate whatever its label (as upstream's keyutil reads key files).
std::vector<Pkey> ReadPublicKeys(std::string_view pem);
// The key's "PUBLIC KEY" PEM.
std::expected<std::string, std::string> PublicKeyPEM(EVP_PKEY* key);
// The "kid" upstream writes: unpadded base64url of the SHA-256 of the DER public key.
std::expected<std::string, std::string> KeyID(EVP_PKEY* key);

// A public key's JSON Web Key members (RFC 7518 section 6), unpadded base64url: "RSA" with
// n and e, or "EC" with crv ("P-256", "P-384", "P-521") and x and y padded to the curve.
struct PublicJWK {
  std::string kty, crv, n, e, x, y;
};
std::expected<PublicJWK, std::string> JWKOf(EVP_PKEY* key);
// The public key a JWK describes (the inverse of JWKOf; members base64url, padded or not):
// an error when kty is neither, a member is missing or the point is not on the curve.
std::expected<Pkey, std::string> PublicKeyOf(const PublicJWK& jwk);

// What upstream signs with: RS256 for an RSA key, ES256/384/512 by an EC key's curve.
std::expected<std::string, std::string> SigningAlgorithm(EVP_PKEY* key);
// The JWS signature of `input` (ECDSA as JOSE's r||s).
std::expected<std::string, std::string> Sign(EVP_PKEY* key, std::string_view alg,
                                             std::string_view input);
// Whether `sig` is a valid `alg` signature of `input` by `key`; an algorithm the key
// cannot do ("none", HS256, ES256 with an RSA key) is simply invalid.
bool Verify(EVP_PKEY* key, std::string_view alg, std::string_view input, std::string_view sig);

// A compact serialization's parts, base64url-decoded (padding tolerated on the header and
// signature, as go-jose does); std::nullopt unless the token is three such parts.
struct Parts {
  std::string_view signing_input;  // "<header>.<payload>" as sent
  std::string header, payload, signature;
};
std::optional<Parts> Split(std::string_view token);

}  // namespace authn::jws
