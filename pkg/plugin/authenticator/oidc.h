#pragma once
// --oidc-issuer-url and the other --oidc-* flags: bearer tokens that are JWTs of an OpenID
// Connect issuer (upstream's OIDC authenticator, as its flags configure it). A token whose
// `iss` is not the issuer URL is not this authenticator's. One that is must be signed by a
// key of the issuer's JWKS with one of the allowed algorithms, name the client ID in `aud`,
// not be expired (exp is required; nbf and iat are not checked, as go-oidc does not), carry
// the required claims with their values; the user is the username claim with its prefix
// (none for `email`, which must then not be unverified; the issuer URL and '#' for other
// claims unless a prefix is given; "-" for none) in the groups of the groups claim (a string
// or a list of strings) with theirs.
//
// The issuer's discovery document (<issuer>/.well-known/openid-configuration, whose issuer
// must be the URL) is read at start, and every 10 s until that succeeds; until then tokens
// of the issuer are refused ("oidc: authenticator not initialized"). It names the JWKS,
// fetched at the first token and again whenever no key verifies one (a rotation): callers
// that need keys while a fetch is on its way wait for its answer rather than fetching too.
//
// Threads: the keys are guarded by a mutex never held across an await; fetches run on the
// caller's executor, one at a time (others wait for its keys).

#include <chrono>
#include <expected>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/authn/authenticator.h"

namespace authn {

struct OIDCOptions {
  std::string issuer_url;
  std::string client_id;
  std::string ca_pem;  // the CAs of the issuer's TLS (--oidc-ca-file); empty: the system's roots
  std::string username_claim = "sub";
  std::string username_prefix;  // empty: derived from the claim, as above
  std::string groups_claim;
  std::string groups_prefix;
  std::map<std::string, std::string> required_claims;
  std::vector<std::string> signing_algs = {"RS256"};
};

// The algorithms --oidc-signing-algs may name (those go-oidc verifies).
const std::vector<std::string>& OIDCSupportedAlgorithms();

// Checks what does not need the network, with upstream's messages: the issuer an https URL
// without query, fragment or user, a username claim, required claims named, the algorithms.
std::vector<std::string> ValidateOIDCOptions(const OIDCOptions& options);

std::expected<AuthenticatorPtr, std::string> NewOIDCAuthenticator(
    const OIDCOptions& options, boost::asio::any_io_executor executor,
    std::function<std::chrono::system_clock::time_point()> now = std::chrono::system_clock::now);

// The steps of a verification that need no keys, for tests.
namespace oidc_internal {
// What go-oidc finds wrong with the claims of a token (audience, expiry, not-before), in its
// order and words, or std::nullopt.
std::optional<std::string> CheckClaims(const nlohmann::json& claims, const OIDCOptions& options,
                                       std::chrono::system_clock::time_point now);
// The user of verified claims, or why the claims make none.
AuthenticateResult UserOf(const nlohmann::json& claims, const OIDCOptions& options);
}  // namespace oidc_internal

}  // namespace authn
