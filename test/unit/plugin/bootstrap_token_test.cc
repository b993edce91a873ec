#include <map>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "pkg/clusterbootstrap/token_secret.h"
#include "pkg/genericserver/authn/union.h"
#include "pkg/plugin/authenticator/bootstrap_token.h"
#include "pkg/util/base64.h"
#include "test/unit/support/time_at.h"

namespace {

using nlohmann::json;
using testing::At;
using Kind = authn::BootstrapTokenSecrets::Kind;

constexpr char kId[] = "abcdef";
constexpr char kSecret[] = "0123456789abcdef";
constexpr char kToken[] = "abcdef.0123456789abcdef";

// A bootstrap token Secret of kube-system with the given data, in clear (stored base64).
json TokenSecret(std::map<std::string, std::string> data, std::string name = "",
                 std::string ns = "kube-system",
                 std::string type = "bootstrap.kubernetes.io/token") {
  if (name.empty()) name = std::string("bootstrap-token-") + kId;
  json secret = {{"apiVersion", "v1"},
                 {"kind", "Secret"},
                 {"metadata", {{"name", name}, {"namespace", ns}}},
                 {"type", type},
                 {"data", json::object()}};
  for (const auto& [k, v] : data) secret["data"][k] = util::Base64Encode(v);
  return secret;
}

std::map<std::string, std::string> ValidData() {
  return {{"token-id", kId},
          {"token-secret", kSecret},
          {"usage-bootstrap-authentication", "true"},
          {"expiration", "2026-12-01T00:00:00Z"}};
}

genericserver::Request WithToken(const std::string& token) {
  genericserver::Request r = genericserver::Request::FromTarget("GET", "/api");
  r.headers.Add("Authorization", "Bearer " + token);
  return r;
}

struct Fixture {
  std::shared_ptr<authn::BootstrapTokenSecrets> secrets =
      std::make_shared<authn::BootstrapTokenSecrets>();
  authn::AuthenticatorPtr auth =
      authn::NewBootstrapTokenAuthenticator(secrets, [] { return At("2026-11-30T12:00:00Z"); });

  authn::AuthenticateResult With(const json& secret, const std::string& token = kToken) {
    secrets->Replace(Kind::kSecret, {secret});
    return auth->Authenticate(WithToken(token));
  }
};

}  // namespace

TEST_CASE("bootstrap token: a valid token is system:bootstrap:<id>", "[authn][bootstrap]") {
  Fixture f;
  auto data = ValidData();
  data["auth-extra-groups"] = "system:bootstrappers:worker,system:bootstrappers:a:b-c";
  auto r = f.With(TokenSecret(data));
  REQUIRE(r);
  REQUIRE(*r);
  CHECK((*r)->name == "system:bootstrap:abcdef");
  CHECK((*r)->uid.empty());
  // Sorted, system:bootstrappers always among them.
  CHECK((*r)->groups == std::vector<std::string>{"system:bootstrappers",
                                                 "system:bootstrappers:a:b-c",
                                                 "system:bootstrappers:worker"});
  // Without an expiration the token does not expire; without extra groups only the default.
  data = ValidData();
  data.erase("expiration");
  r = f.With(TokenSecret(data));
  REQUIRE(r);
  REQUIRE(*r);
  CHECK((*r)->groups == std::vector<std::string>{"system:bootstrappers"});
}

TEST_CASE("bootstrap token: anything else is no opinion", "[authn][bootstrap]") {
  Fixture f;
  auto no_opinion = [](const authn::AuthenticateResult& r) { return r && !*r; };
  const json valid = TokenSecret(ValidData());
  // Not of the token's form (upper case, lengths, separator): not even looked up.
  CHECK(no_opinion(f.With(valid, "ABCDEF.0123456789abcdef")));
  CHECK(no_opinion(f.With(valid, "abcdef.0123456789abcde")));
  CHECK(no_opinion(f.With(valid, "abcdef:0123456789abcdef")));
  CHECK(no_opinion(f.With(valid, "abcdef.0123456789abcdef0")));
  // Another secret, or the right secret with another id.
  CHECK(no_opinion(f.With(valid, "abcdef.0123456789abcdeg")));
  CHECK(no_opinion(f.With(valid, "abcdeg.0123456789abcdef")));
  // No Secret, or one in another namespace, of another type, being deleted.
  f.secrets->Replace(Kind::kSecret, {});
  CHECK(no_opinion(f.auth->Authenticate(WithToken(kToken))));
  CHECK(no_opinion(f.With(TokenSecret(ValidData(), "", "default"))));
  CHECK(no_opinion(f.With(TokenSecret(ValidData(), "", "kube-system", "Opaque"))));
  json deleting = valid;
  deleting["metadata"]["deletionTimestamp"] = "2026-11-30T11:00:00Z";
  CHECK(no_opinion(f.With(deleting)));
  // token-id not the name's.
  auto data = ValidData();
  data["token-id"] = "zzzzzz";
  CHECK(no_opinion(f.With(TokenSecret(data))));
  // Expired, or an expiration that does not parse.
  data = ValidData();
  data["expiration"] = "2026-11-30T11:59:59Z";
  CHECK(no_opinion(f.With(TokenSecret(data))));
  data["expiration"] = "tomorrow";
  CHECK(no_opinion(f.With(TokenSecret(data))));
  // Not for authentication.
  data = ValidData();
  data.erase("usage-bootstrap-authentication");
  CHECK(no_opinion(f.With(TokenSecret(data))));
  data["usage-bootstrap-authentication"] = "yes";
  CHECK(no_opinion(f.With(TokenSecret(data))));
  // An extra group outside system:bootstrappers:*, or ending in ':' or '-', or empty.
  for (const char* groups : {"system:masters", "system:bootstrappers", "system:bootstrappers:a-",
                             "system:bootstrappers:ok,", "system:bootstrappers:Upper"}) {
    data = ValidData();
    data["auth-extra-groups"] = groups;
    INFO(groups);
    CHECK(no_opinion(f.With(TokenSecret(data))));
  }
  // The union refuses a token nobody takes.
  auto all = authn::NewUnionAuthenticator({f.auth}, /*anonymous=*/true);
  f.secrets->Replace(Kind::kSecret, {});
  auto refused = all->Authenticate(WithToken(kToken));
  REQUIRE_FALSE(refused);
  CHECK(refused.error() == "invalid bearer token");
}

TEST_CASE("bootstrap token secrets follow the Secrets they are fed", "[authn][bootstrap]") {
  Fixture f;
  CHECK_FALSE(f.secrets->Synced());
  f.secrets->Replace(Kind::kSecret,
                     {TokenSecret({}, "other", "kube-system", "Opaque"),
                      TokenSecret(ValidData(), "bootstrap-token-abcdef", "default")});
  f.secrets->MarkSynced(Kind::kSecret);
  CHECK(f.secrets->Synced());
  // Only kube-system's bootstrap-token-* are kept.
  CHECK_FALSE(f.secrets->Find("other"));
  CHECK_FALSE(f.secrets->Find("bootstrap-token-abcdef"));
  f.secrets->Upsert(Kind::kSecret, TokenSecret(ValidData()));
  REQUIRE(f.secrets->Find("bootstrap-token-abcdef"));
  CHECK(*f.auth->Authenticate(WithToken(kToken)));
  f.secrets->Remove(Kind::kSecret, TokenSecret({}));
  CHECK_FALSE(f.secrets->Find("bootstrap-token-abcdef"));
  CHECK_FALSE(*f.auth->Authenticate(WithToken(kToken)));
}

TEST_CASE("bootstrap token groups as cluster-bootstrap reads them", "[authn][bootstrap]") {
  auto groups = [](const std::string& extra) {
    return clusterbootstrap::TokenGroups(TokenSecret({{"auth-extra-groups", extra}}));
  };
  CHECK(*groups("") == std::vector<std::string>{"system:bootstrappers"});
  CHECK(*groups("system:bootstrappers:b,system:bootstrappers:a,system:bootstrappers:b") ==
        std::vector<std::string>{"system:bootstrappers", "system:bootstrappers:a",
                                 "system:bootstrappers:b"});
  // Not trimmed, as upstream does not trim them.
  auto spaced = groups("system:bootstrappers:a, system:bootstrappers:b");
  REQUIRE_FALSE(spaced);
  CHECK(spaced.error() ==
        "bootstrap group \" system:bootstrappers:b\" is invalid (must match "
        "system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9])");
  CHECK(groups("system:bootstrappers:" + std::string(256, 'a')));
  CHECK_FALSE(groups("system:bootstrappers:" + std::string(257, 'a')));
}
