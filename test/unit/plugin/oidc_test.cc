// The parts of the OIDC authenticator that need no provider: options, claims, the user, and
// JWKs read back into keys. The whole authenticator against a real HTTPS provider is
// test/integration/test_authenticators.py.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "pkg/genericserver/authn/jws.h"
#include "pkg/plugin/authenticator/oidc.h"
#include "test/unit/genericserver/authn/service_account_token_support.h"

namespace {

using nlohmann::json;
using Clock = std::chrono::system_clock;
namespace oi = authn::oidc_internal;

constexpr char kIssuer[] = "https://issuer.example";

authn::OIDCOptions Options() {
  authn::OIDCOptions o;
  o.issuer_url = kIssuer;
  o.client_id = "kubectl";
  return o;
}

Clock::time_point At(int64_t unix_seconds) {
  return Clock::time_point(std::chrono::seconds(unix_seconds));
}

json Claims() { return {{"iss", kIssuer}, {"sub", "alice"}, {"aud", "kubectl"}, {"exp", 2000}}; }

}  // namespace

TEST_CASE("oidc options are checked as upstream checks them", "[authn][oidc]") {
  CHECK(authn::ValidateOIDCOptions(Options()).empty());
  auto o = Options();
  o.issuer_url = "http://issuer.example";
  CHECK(authn::ValidateOIDCOptions(o) ==
        std::vector<std::string>{"invalid authentication configuration: jwt[0].issuer.url: "
                                 "Invalid value: \"http://issuer.example\": URL scheme must be "
                                 "https"});
  o.issuer_url = "https://u:p@issuer.example/?q=1";
  auto errors = authn::ValidateOIDCOptions(o);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].starts_with("[invalid authentication configuration: jwt[0].issuer.url: "));
  CHECK(errors[0].find("URL must not contain a username or password, ") != std::string::npos);
  CHECK(errors[0].ends_with("URL must not contain a query]"));
  o = Options();
  o.signing_algs = {"RS256", "HS256", "none"};
  CHECK(authn::ValidateOIDCOptions(o) ==
        std::vector<std::string>{"oidc: unsupported signing alg: \"HS256\"",
                                 "oidc: unsupported signing alg: \"none\""});
  o = Options();
  o.username_claim = "";
  CHECK(authn::ValidateOIDCOptions(o).size() == 1);
}

TEST_CASE("oidc claims: audience, expiry and not-before in go-oidc's order", "[authn][oidc]") {
  const auto o = Options();
  CHECK_FALSE(oi::CheckClaims(Claims(), o, At(1000)));
  json c = Claims();
  c["aud"] = json::array({"a", "kubectl"});
  CHECK_FALSE(oi::CheckClaims(c, o, At(1000)));
  c["aud"] = json::array({"a", "b"});
  CHECK(oi::CheckClaims(c, o, At(1000)) == "oidc: expected audience \"kubectl\" got [\"a\" \"b\"]");
  c.erase("aud");
  CHECK(oi::CheckClaims(c, o, At(1000)) == "oidc: expected audience \"kubectl\" got []");
  c["aud"] = 7;
  CHECK(oi::CheckClaims(c, o, At(1000)) ==
        "oidc: failed to unmarshal claims: json: cannot unmarshal number into Go value of type "
        "string");
  // The audience is checked before the expiry.
  c = Claims();
  c["aud"] = "other";
  CHECK(oi::CheckClaims(c, o, At(5000))->starts_with("oidc: expected audience"));
  // No leeway on exp; a missing exp is the zero time.
  c = Claims();
  CHECK_FALSE(oi::CheckClaims(c, o, At(2000)));
  CHECK(oi::CheckClaims(c, o, At(2001)) ==
        "oidc: token is expired (Token Expiry: 1970-01-01 00:33:20 +0000 UTC)");
  c.erase("exp");
  CHECK(oi::CheckClaims(c, o, At(0)) ==
        "oidc: token is expired (Token Expiry: 0001-01-01 00:00:00 +0000 UTC)");
  c["exp"] = "2000";
  CHECK(oi::CheckClaims(c, o, At(0))->starts_with("oidc: failed to unmarshal claims: "));
  // A minute of leeway on nbf; iat is not checked.
  c = Claims();
  c["nbf"] = 1060;
  c["iat"] = 1999;
  CHECK_FALSE(oi::CheckClaims(c, o, At(1000)));
  c["nbf"] = 1061;
  CHECK(oi::CheckClaims(c, o, At(1000)) ==
        "oidc: current time 1970-01-01 00:16:40 +0000 UTC before the nbf (not before) time: "
        "1970-01-01 00:17:41 +0000 UTC");
}

TEST_CASE("oidc user: username and groups claims with their prefixes", "[authn][oidc]") {
  auto o = Options();
  json c = Claims();
  c["jti"] = "t-1";
  auto user = oi::UserOf(c, o);
  REQUIRE(user);
  CHECK((*user)->name == "https://issuer.example#alice");
  CHECK((*user)->uid.empty());
  CHECK((*user)->groups.empty());
  CHECK((*user)->extra == std::map<std::string, std::vector<std::string>>{
                              {"authentication.kubernetes.io/credential-id", {"JTI=t-1"}}});
  o.username_prefix = "-";
  CHECK((*oi::UserOf(c, o))->name == "alice");
  o.username_prefix = "corp:";
  CHECK((*oi::UserOf(c, o))->name == "corp:alice");
  o.username_claim = "name";
  CHECK(oi::UserOf(c, o).error() == "oidc: parse username claims \"name\": claim not present");
  c["name"] = 5;
  CHECK(oi::UserOf(c, o).error() ==
        "oidc: parse username claims \"name\": json: cannot unmarshal number into Go value of "
        "type string");

  // email: no prefix by default, and email_verified must not be false.
  o = Options();
  o.username_claim = "email";
  c = Claims();
  c["email"] = "alice@example.com";
  CHECK((*oi::UserOf(c, o))->name == "alice@example.com");
  c["email_verified"] = true;
  CHECK(oi::UserOf(c, o));
  c["email_verified"] = false;
  CHECK(oi::UserOf(c, o).error() == "oidc: email not verified");
  c["email_verified"] = "true";
  CHECK(oi::UserOf(c, o).error() ==
        "oidc: parse 'email_verified' claim: json: cannot unmarshal string into Go value of "
        "type bool");

  o = Options();
  o.groups_claim = "groups";
  o.groups_prefix = "oidc:";
  c = Claims();
  CHECK((*oi::UserOf(c, o))->groups.empty());
  c["groups"] = "one";
  CHECK((*oi::UserOf(c, o))->groups == std::vector<std::string>{"oidc:one"});
  c["groups"] = json::array({"a", "b"});
  CHECK((*oi::UserOf(c, o))->groups == std::vector<std::string>{"oidc:a", "oidc:b"});
  c["groups"] = json::array({"a", 1});
  CHECK(oi::UserOf(c, o).error() ==
        "oidc: parse groups claim \"groups\": json: cannot unmarshal array into Go value of type "
        "string");
}

TEST_CASE("oidc user: required claims", "[authn][oidc]") {
  auto o = Options();
  o.required_claims = {{"hd", "example.com"}};
  json c = Claims();
  CHECK(oi::UserOf(c, o).error() == "oidc: required claim hd not present in ID token");
  c["hd"] = "evil.com";
  CHECK(oi::UserOf(c, o).error() ==
        "oidc: required claim hd value does not match. Got = evil.com, want = example.com");
  c["hd"] = true;
  CHECK(oi::UserOf(c, o).error() ==
        "oidc: parse claim hd: json: cannot unmarshal bool into Go value of type string");
  c["hd"] = "example.com";
  CHECK(oi::UserOf(c, o));
}

TEST_CASE("a JWK is read back into the key it describes", "[authn][oidc][jws]") {
  using testing::sa_tokens::ReadKey;
  for (const std::string& pem :
       {testing::sa_tokens::RsaKey(), testing::sa_tokens::NewEcKey("P-256"),
        testing::sa_tokens::NewEcKey("P-384"), testing::sa_tokens::NewEcKey("P-521")}) {
    auto key = ReadKey(pem);
    auto jwk = authn::jws::JWKOf(key.get());
    REQUIRE(jwk);
    auto back = authn::jws::PublicKeyOf(*jwk);
    INFO(jwk->kty << " " << jwk->crv << (back ? "" : back.error()));
    REQUIRE(back);
    auto alg = authn::jws::SigningAlgorithm(key.get());
    REQUIRE(alg);
    auto sig = authn::jws::Sign(key.get(), *alg, "payload");
    REQUIRE(sig);
    CHECK(authn::jws::Verify(back->get(), *alg, "payload", *sig));
    CHECK_FALSE(authn::jws::Verify(back->get(), *alg, "payloaX", *sig));
  }
  // Missing members, unknown types and curves, a point off the curve.
  CHECK_FALSE(authn::jws::PublicKeyOf({"RSA", "", "", "AQAB", "", ""}));
  CHECK(authn::jws::PublicKeyOf({"oct", "", "", "", "", ""}).error() ==
        "unsupported key type \"oct\"");
  CHECK(authn::jws::PublicKeyOf({"EC", "P-192", "", "", "AA", "AA"}).error() ==
        "unsupported elliptic curve \"P-192\"");
  const std::string zeros = util::Base64RawURLEncode(std::string(32, '\x01'));
  CHECK_FALSE(authn::jws::PublicKeyOf({"EC", "P-256", "", "", zeros, zeros}));
}
