// serviceaccounts/token through the whole chain: a TokenRequest answered with a token the
// service-account authenticator accepts, upstream's validation, and no token for an absent
// service account.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/authn/service_account_token.h"
#include "pkg/genericserver/server/request.h"
#include "pkg/pki/pki.h"
#include "test/unit/master/registry/chain_fixture.h"

using nlohmann::json;

namespace {

constexpr char kSAs[] = "/api/v1/namespaces/default/serviceaccounts";

master::Config WithKey(const std::string& key) {
  master::Config c;
  c.service_account_signing_key = key;
  c.service_account_issuer = "https://issuer.example";
  c.api_audiences = {"https://api.example"};
  return c;
}

}  // namespace

TEST_CASE("service account tokens: TokenRequest answered with a verifiable token", "[builtin]") {
  auto key = pki::GeneratePrivateKey();
  REQUIRE(key.has_value());
  testing::Chain api(WithKey(*key));
  const json sa = api.Create(kSAs, json::parse(R"({"metadata":{"name":"robot"}})"));

  auto made = api.Do("POST", std::string(kSAs) + "/robot/token",
                     R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest",
                         "spec":{"expirationSeconds":1200}})");
  REQUIRE(made.status == 201);
  const json answer = made.Json();
  CHECK(answer["kind"] == "TokenRequest");
  CHECK(answer["metadata"]["name"] == "robot");
  CHECK(answer["metadata"]["namespace"] == "default");
  CHECK(answer["spec"]["audiences"] == json::array({"https://api.example"}));
  CHECK(answer["spec"]["expirationSeconds"] == 1200);
  const std::string token = answer["status"]["token"];
  auto expires = answer["status"]["expirationTimestamp"];
  CHECK(expires.is_string());

  // The authenticator built from the same key's public half knows who the token is.
  auto public_key = authn::PublicKeyOf(*key);
  REQUIRE(public_key.has_value());
  auto authenticator = authn::NewServiceAccountTokenAuthenticator(
      {*public_key}, {"https://issuer.example"}, {"https://api.example"});
  genericserver::Request request;
  request.headers.Set("Authorization", "Bearer " + token);
  auto user = authenticator->Authenticate(request);
  REQUIRE(user.has_value());
  REQUIRE(user->has_value());
  CHECK((*user)->name == "system:serviceaccount:default:robot");
  CHECK((*user)->uid == sa["metadata"]["uid"]);
  CHECK((*user)->groups ==
        std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:default"});

  // Another audience is not this server's.
  auto elsewhere =
      api.Do("POST", std::string(kSAs) + "/robot/token", R"({"spec":{"audiences":["vault"]}})");
  REQUIRE(elsewhere.status == 201);
  CHECK(elsewhere.Json()["spec"]["expirationSeconds"] == 3600);
  request.headers.Set("Authorization",
                      "Bearer " + elsewhere.Json()["status"]["token"].get<std::string>());
  CHECK_FALSE(authenticator->Authenticate(request).has_value());

  auto short_lived =
      api.Do("POST", std::string(kSAs) + "/robot/token", R"({"spec":{"expirationSeconds":599}})");
  REQUIRE(short_lived.status == 422);
  CHECK(short_lived.Json()["details"]["causes"][0]["message"] ==
        "Invalid value: 599: may not specify a duration less than 10 minutes");
  auto wrong_kind = api.Do("POST", std::string(kSAs) + "/robot/token",
                           R"({"spec":{"boundObjectRef":{"kind":"Deployment","name":"d"}}})");
  REQUIRE(wrong_kind.status == 422);
  CHECK(wrong_kind.Json()["details"]["causes"][0]["field"] == "spec.boundObjectRef.kind");
  // kubectl sends an unset reference as null: not bound, no error.
  CHECK(api.Do("POST", std::string(kSAs) + "/robot/token", R"({"spec":{"boundObjectRef":null}})")
            .status == 201);
  auto missing = api.Do("POST", std::string(kSAs) + "/ghost/token", R"({"spec":{}})");
  CHECK(missing.status == 404);
}

TEST_CASE("service account tokens: no signing key, no token subresource", "[builtin]") {
  testing::Chain api;
  api.Create(kSAs, json::parse(R"({"metadata":{"name":"robot"}})"));
  CHECK(api.Do("POST", std::string(kSAs) + "/robot/token", R"({"spec":{}})").status == 404);
}
