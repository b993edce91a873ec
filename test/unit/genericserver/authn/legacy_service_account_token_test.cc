// Legacy (Secret-based) service-account tokens: what the serviceaccount-token controller
// signs, and the API server's authenticator accepting them beside the bound tokens.

#include <catch2/catch.hpp>

#include "test/unit/genericserver/authn/service_account_token_support.h"

namespace {

using namespace testing::sa_tokens;

authn::LegacyServiceAccountClaims LegacyClaims() {
  return {.ns = "default", .name = "robot", .uid = "sa-uid-1", .secret_name = "robot-token"};
}

}  // namespace

TEST_CASE("legacy service account token: claims as upstream's, no expiry or audience", "[authn]") {
  auto token = authn::SignLegacyServiceAccountToken(LegacyClaims(), RsaKey());
  REQUIRE(token);
  std::vector<std::string> parts = Parts(*token);
  REQUIRE(parts.size() == 3);
  CHECK(DecodePart(parts[0]) == json{{"alg", "RS256"}, {"kid", KeyIDOf(RsaKey())}});
  CHECK(DecodePart(parts[1]) ==
        json{{"iss", "kubernetes/serviceaccount"},
             {"kubernetes.io/serviceaccount/namespace", "default"},
             {"kubernetes.io/serviceaccount/secret.name", "robot-token"},
             {"kubernetes.io/serviceaccount/service-account.name", "robot"},
             {"kubernetes.io/serviceaccount/service-account.uid", "sa-uid-1"},
             {"sub", "system:serviceaccount:default:robot"}});

  auto missing = LegacyClaims();
  missing.secret_name.clear();
  CHECK_FALSE(authn::SignLegacyServiceAccountToken(missing, RsaKey()));
}

TEST_CASE("legacy service account token: accepted whatever the configured issuers and audiences",
          "[authn]") {
  auto token = authn::SignLegacyServiceAccountToken(LegacyClaims(), EcKey());
  REQUIRE(token);
  auto result = Authenticate(Authenticator({PublicPem(EcKey())}), *token);
  REQUIRE(Accepted(result));
  const authn::UserInfo& user = **result;
  CHECK(user.name == "system:serviceaccount:default:robot");
  CHECK(user.uid == "sa-uid-1");
  CHECK(user.groups ==
        std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:default"});
  CHECK(user.extra.empty());

  // Signed by a key the server does not hold: refused, not ignored.
  auto other = authn::SignLegacyServiceAccountToken(LegacyClaims(), NewEcKey());
  REQUIRE(other);
  CHECK(Error(Authenticate(Authenticator({PublicPem(EcKey())}), *other)) ==
        "invalid signature, no keys found");
  // A signature altered: the key is found, the check fails.
  std::vector<std::string> parts = Parts(*token);
  std::string altered = parts[0] + "." + parts[1] + "." + EncodePart(json("not the signature"));
  CHECK(Error(Authenticate(Authenticator({PublicPem(EcKey())}), altered)) == kCryptoFailure);
}

TEST_CASE("legacy service account token: every private claim is required", "[authn]") {
  for (const char* claim :
       {"kubernetes.io/serviceaccount/namespace", "kubernetes.io/serviceaccount/secret.name",
        "kubernetes.io/serviceaccount/service-account.name",
        "kubernetes.io/serviceaccount/service-account.uid"}) {
    json payload = {{"iss", "kubernetes/serviceaccount"},
                    {"kubernetes.io/serviceaccount/namespace", "default"},
                    {"kubernetes.io/serviceaccount/secret.name", "robot-token"},
                    {"kubernetes.io/serviceaccount/service-account.name", "robot"},
                    {"kubernetes.io/serviceaccount/service-account.uid", "sa-uid-1"},
                    {"sub", "system:serviceaccount:default:robot"}};
    payload.erase(claim);
    INFO(claim);
    std::string token =
        SignRS256(RsaKey(), {{"alg", "RS256"}, {"kid", KeyIDOf(RsaKey())}}, payload);
    CHECK(Error(Authenticate(Authenticator({PublicPem(RsaKey())}), token)).ends_with("is missing"));
  }
}
