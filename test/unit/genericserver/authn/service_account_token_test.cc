// Service-account tokens: signing and verifying with RSA and EC keys, upstream's claims and
// user, expiry, issuer and audience.
#include <catch2/catch.hpp>

#include <random>
#include <tuple>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/authn/jws.h"
#include "pkg/genericserver/authn/service_account_token.h"
#include "pkg/genericserver/authn/token_file.h"
#include "pkg/genericserver/authn/union.h"
#include "test/unit/genericserver/authn/service_account_token_support.h"

using namespace testing::sa_tokens;

TEST_CASE("service account token: RSA round trip gives upstream's user", "[authn]") {
  const std::string token = SignOrFail(PodClaims(), RsaKey());
  auto result = Authenticate(Authenticator({PublicPem(RsaKey())}), token);
  REQUIRE(result);
  REQUIRE(*result);
  const authn::UserInfo& user = **result;
  CHECK(user.name == "system:serviceaccount:default:robot");
  CHECK(user.uid == "sa-uid-1");
  CHECK(user.groups ==
        std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:default"});
  CHECK(user.extra == std::map<std::string, std::vector<std::string>>{
                          {"authentication.kubernetes.io/credential-id",
                           {"JTI=4f9c2a1e-8d7b-4c3a-9e2f-1a2b3c4d5e6f"}},
                          {"authentication.kubernetes.io/pod-name", {"web-0"}},
                          {"authentication.kubernetes.io/pod-uid", {"pod-uid-1"}},
                      });

  // The header: RS256 and the key ID of the public key, nothing else.
  std::vector<std::string> parts = Parts(token);
  REQUIRE(parts.size() == 3);
  CHECK(DecodePart(parts[0]) == json{{"alg", "RS256"}, {"kid", KeyIDOf(RsaKey())}});
  CHECK(util::Base64Decode(parts[2])->size() == 256);
  // Unpadded base64url throughout.
  CHECK(token.find_first_of("=+/") == std::string::npos);
}

TEST_CASE("service account token: EC P-256 round trip, node-bound", "[authn]") {
  authn::ServiceAccountClaims claims = PodClaims();
  claims.bound_kind = "Node";
  claims.bound_name = "node-a";
  claims.bound_uid = "node-uid-1";
  const std::string token = SignOrFail(claims, EcKey());
  std::vector<std::string> parts = Parts(token);
  CHECK(DecodePart(parts[0]) == json{{"alg", "ES256"}, {"kid", KeyIDOf(EcKey())}});
  CHECK(util::Base64Decode(parts[2])->size() == 64);  // JOSE's r || s, not DER

  auto result = Authenticate(Authenticator({PublicPem(EcKey())}), token);
  REQUIRE(result);
  REQUIRE(*result);
  CHECK((*result)->name == "system:serviceaccount:default:robot");
  CHECK((*result)->extra == std::map<std::string, std::vector<std::string>>{
                                {"authentication.kubernetes.io/credential-id",
                                 {"JTI=4f9c2a1e-8d7b-4c3a-9e2f-1a2b3c4d5e6f"}},
                                {"authentication.kubernetes.io/node-name", {"node-a"}},
                                {"authentication.kubernetes.io/node-uid", {"node-uid-1"}},
                            });

  // Several signatures of the same claims all verify (ECDSA is randomized).
  for (int i = 0; i < 20; ++i) {
    CHECK(Accepted(Authenticate(Authenticator({PublicPem(EcKey())}), SignOrFail(claims, EcKey()))));
  }
  // Other curves sign with their own algorithm, as upstream.
  const std::string p384 = NewEcKey("P-384");
  const std::string t384 = SignOrFail(claims, p384);
  CHECK(DecodePart(Parts(t384)[0])["alg"] == "ES384");
  CHECK(Accepted(Authenticate(Authenticator({PublicPem(p384)}), t384)));
}

TEST_CASE("service account token: claims are exactly upstream's", "[authn]") {
  const authn::ServiceAccountClaims c = PodClaims();
  const json claims = DecodePart(Parts(SignOrFail(c, RsaKey()))[1]);
  const auto iat = std::chrono::floor<std::chrono::seconds>(c.issued_at.time_since_epoch()).count();
  CHECK(claims == json{
                      {"aud", {kAudience}},
                      {"exp", iat + 3600},
                      {"iat", iat},
                      {"iss", kIssuer},
                      {"jti", c.jti},
                      {"kubernetes.io",
                       {{"namespace", "default"},
                        {"pod", {{"name", "web-0"}, {"uid", "pod-uid-1"}}},
                        {"serviceaccount", {{"name", "robot"}, {"uid", "sa-uid-1"}}}}},
                      {"nbf", iat},
                      {"sub", "system:serviceaccount:default:robot"},
                  });
  // Keys in Go's (sorted) order, integers for the dates.
  const std::string raw = *util::Base64Decode(Parts(SignOrFail(c, RsaKey()))[1]);
  CHECK(raw.starts_with("{\"aud\":[\"https://api.example\"],\"exp\":"));

  // A pod on a node: the node too, as the user's extra.
  authn::ServiceAccountClaims on_node = c;
  on_node.pod_node_name = "node-a";
  on_node.pod_node_uid = "node-uid-1";
  const std::string node_token = SignOrFail(on_node, RsaKey());
  CHECK(DecodePart(Parts(node_token)[1])["kubernetes.io"]["node"] ==
        json{{"name", "node-a"}, {"uid", "node-uid-1"}});
  auto on_node_user = Authenticate(Authenticator({PublicPem(RsaKey())}), node_token);
  REQUIRE(on_node_user);
  REQUIRE(*on_node_user);
  CHECK((*on_node_user)->extra.at("authentication.kubernetes.io/node-name") ==
        std::vector<std::string>{"node-a"});

  // Unbound and secret-bound tokens; empty fields left out.
  authn::ServiceAccountClaims unbound = c;
  unbound.bound_kind.clear();
  unbound.jti.clear();
  unbound.audiences.clear();
  const json plain = DecodePart(Parts(SignOrFail(unbound, RsaKey()))[1]);
  CHECK_FALSE(plain.contains("jti"));
  CHECK_FALSE(plain.contains("aud"));
  CHECK(
      plain["kubernetes.io"] ==
      json{{"namespace", "default"}, {"serviceaccount", {{"name", "robot"}, {"uid", "sa-uid-1"}}}});

  authn::ServiceAccountClaims secret = c;
  secret.bound_kind = "Secret";
  secret.bound_name = "robot-token";
  secret.bound_uid = "secret-uid";
  const std::string secret_token = SignOrFail(secret, RsaKey());
  CHECK(DecodePart(Parts(secret_token)[1])["kubernetes.io"]["secret"] ==
        json{{"name", "robot-token"}, {"uid", "secret-uid"}});
  // A secret binding adds no extra but the credential ID.
  auto user = Authenticate(Authenticator({PublicPem(RsaKey())}), secret_token);
  REQUIRE(user);
  REQUIRE(*user);
  CHECK((*user)->extra.size() == 1);
  CHECK((*user)->extra.contains("authentication.kubernetes.io/credential-id"));
}

TEST_CASE("service account token: expiry and not-before with a minute of leeway", "[authn]") {
  auto auth = Authenticator({PublicPem(RsaKey())});
  authn::ServiceAccountClaims c = PodClaims();

  c.issued_at = Now() - std::chrono::hours(2);
  c.expires_at = Now() - std::chrono::hours(1);
  CHECK(Error(Authenticate(auth, SignOrFail(c, RsaKey()))) == "service account token has expired");
  c.expires_at = Now() - std::chrono::seconds(30);  // within the leeway
  CHECK(Accepted(Authenticate(auth, SignOrFail(c, RsaKey()))));

  c.issued_at = Now() + std::chrono::minutes(5);
  c.expires_at = Now() + std::chrono::hours(1);
  CHECK(Error(Authenticate(auth, SignOrFail(c, RsaKey()))) ==
        "service account token is not valid yet");
  c.issued_at = Now() + std::chrono::seconds(30);  // within the leeway
  CHECK(Accepted(Authenticate(auth, SignOrFail(c, RsaKey()))));

  // iat in the future on its own (nbf fine) is refused too.
  json payload = ValidPayload();
  payload["iat"] = payload["iat"].get<int64_t>() + 600;
  CHECK(Error(Authenticate(auth, SignRS256(RsaKey(), {{"alg", "RS256"}}, payload))) ==
        "service account token is issued in the future");
}

TEST_CASE("service account token: issuer and audience", "[authn]") {
  const std::string token = SignOrFail(PodClaims(), RsaKey());
  // Another issuer's token is left to the other authenticators.
  auto other_issuer = authn::NewServiceAccountTokenAuthenticator({PublicPem(RsaKey())},
                                                                 {"https://other"}, {kAudience});
  CHECK(Ignored(Authenticate(other_issuer, token)));
  // Several issuers may be accepted.
  auto both = authn::NewServiceAccountTokenAuthenticator({PublicPem(RsaKey())},
                                                         {"https://other", kIssuer}, {kAudience});
  CHECK(Accepted(Authenticate(both, token)));

  auto vault_only = Authenticator({PublicPem(RsaKey())}, {"vault", "https://x"});
  CHECK(Error(Authenticate(vault_only, token)) ==
        "token audiences [\"https://api.example\"] is invalid for the target audiences "
        "[\"vault\" \"https://x\"]");
  // One shared audience is enough; no configured audience accepts any.
  authn::ServiceAccountClaims c = PodClaims();
  c.audiences = {"vault", kAudience};
  CHECK(Accepted(Authenticate(Authenticator({PublicPem(RsaKey())}), SignOrFail(c, RsaKey()))));
  CHECK(Accepted(Authenticate(Authenticator({PublicPem(RsaKey())}, {}), token)));
  // A token without audiences (legacy) is taken to be for the server's own.
  c.audiences.clear();
  CHECK(Accepted(Authenticate(Authenticator({PublicPem(RsaKey())}), SignOrFail(c, RsaKey()))));

  // A review for other audiences (TokenReview's spec.audiences): checked against those, and
  // the user is good for the ones shared.
  c.audiences = {"vault", "other", kAudience};
  genericserver::Request review = genericserver::Request::FromTarget("POST", "/");
  review.headers.Add("Authorization", "Bearer " + SignOrFail(c, RsaKey()));
  review.audiences = {"other", "vault", "nobody"};
  auto reviewed = Authenticator({PublicPem(RsaKey())})->Authenticate(review);
  REQUIRE(Accepted(reviewed));
  CHECK((*reviewed)->audiences == std::vector<std::string>{"other", "vault"});
  review.audiences = {"nobody"};
  CHECK(Error(Authenticator({PublicPem(RsaKey())})->Authenticate(review)) ==
        "token audiences [\"vault\" \"other\" \"https://api.example\"] is invalid for the "
        "target audiences [\"nobody\"]");
}

TEST_CASE("public keys as JSON Web Keys, for issuer discovery", "[authn]") {
  Key rsa = ReadKey(RsaKey());
  auto jwk = authn::jws::JWKOf(rsa.get());
  REQUIRE(jwk);
  CHECK(jwk->kty == "RSA");
  CHECK(jwk->e == "AQAB");
  CHECK(jwk->n.size() == 342);  // 256 bytes, unpadded base64url
  CHECK(jwk->crv.empty());
  for (auto [curve, crv, bytes] :
       {std::tuple{"P-256", "P-256", 32}, std::tuple{"P-384", "P-384", 48},
        std::tuple{"P-521", "P-521", 66}}) {
    INFO(curve);
    Key ec = ReadKey(NewEcKey(curve));
    auto e = authn::jws::JWKOf(ec.get());
    REQUIRE(e);
    CHECK(e->kty == "EC");
    CHECK(e->crv == crv);
    // Coordinates padded to the curve's size.
    CHECK(e->x.size() == (bytes * 8 + 5) / 6);
    CHECK(e->y.size() == (bytes * 8 + 5) / 6);
  }
}
