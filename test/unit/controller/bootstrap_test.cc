// The bootstrap token controllers (pkg/controller/bootstrap): the requeue delay of a token
// not expired yet, a token Secret's expiry and whether it may sign, the detached JWS
// compared with values computed independently, and the bootstrap signer's decision over the
// cluster-info ConfigMap.
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/clusterbootstrap/token_secret.h"
#include "pkg/controller/bootstrap/bootstrap_signer.h"
#include "pkg/controller/bootstrap/detached_jws.h"
#include "pkg/controller/worker.h"
#include "pkg/util/base64.h"
#include "test/unit/support/time_at.h"

namespace bs = controller::bootstrap;
namespace cb = clusterbootstrap;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

using testing::At;

// A token Secret with the given data (values in clear; stored base64 as the API has them).
json TokenSecret(const std::string& name, const std::map<std::string, std::string>& data,
                 const std::string& ns = "kube-system",
                 const std::string& type = "bootstrap.kubernetes.io/token") {
  json secret = {{"apiVersion", "v1"},
                 {"kind", "Secret"},
                 {"metadata", {{"name", name}, {"namespace", ns}, {"uid", "uid-" + name}}},
                 {"type", type},
                 {"data", json::object()}};
  for (const auto& [k, v] : data) secret["data"][k] = util::Base64Encode(v);
  return secret;
}

json SigningSecret(const std::string& id, const std::string& token_secret,
                   const std::string& expiration = "") {
  std::map<std::string, std::string> data = {
      {"token-id", id}, {"token-secret", token_secret}, {"usage-bootstrap-signing", "true"}};
  if (!expiration.empty()) data["expiration"] = expiration;
  return TokenSecret("bootstrap-token-" + id, data);
}

std::vector<client::ObjectPtr> Ptrs(const std::vector<json>& objects) {
  std::vector<client::ObjectPtr> out;
  for (const json& o : objects) out.push_back(std::make_shared<const json>(o));
  return out;
}

const char kKubeconfig[] =
    "apiVersion: v1\nkind: Config\nclusters:\n- name: \"\"\n  cluster:\n    server: "
    "https://10.0.0.1:6443\n";

json ClusterInfo(json data) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", "cluster-info"}, {"namespace", "kube-public"}}},
          {"data", std::move(data)}};
}

}  // namespace

TEST_CASE("requeue delays are rounded up and capped", "[controller][bootstrap]") {
  CHECK(controller::RequeueDelay(1500us) == 2ms);
  CHECK(controller::RequeueDelay(3s) == 3000ms);
  CHECK(controller::RequeueDelay(-5s) == 0ms);
  CHECK(controller::RequeueDelay(std::chrono::hours(24 * 365 * 5000)) == 24h);
}

TEST_CASE("token secrets: names, data, expiry", "[controller][bootstrap]") {
  CHECK(cb::TokenIDFromName("bootstrap-token-abc123") == "abc123");
  CHECK_FALSE(cb::TokenIDFromName("bootstrap-token-ABC123").has_value());
  CHECK_FALSE(cb::TokenIDFromName("bootstrap-token-abc12").has_value());
  CHECK_FALSE(cb::TokenIDFromName("bootstrap-token-abc1234").has_value());
  CHECK_FALSE(cb::TokenIDFromName("bootstrap-tokens-abc123").has_value());

  const cb::Time now = At("2026-11-30T12:00:00Z");
  SECTION("no expiration: never expires, nothing to wait for") {
    cb::Expiration e = cb::GetExpiration(TokenSecret("bootstrap-token-abcdef", {}), now);
    CHECK_FALSE(e.expired);
    CHECK(e.remaining.count() == 0);
  }
  SECTION("in the future: the time left") {
    cb::Expiration e = cb::GetExpiration(
        TokenSecret("bootstrap-token-abcdef", {{"expiration", "2026-11-30T13:30:00+01:00"}}), now);
    CHECK_FALSE(e.expired);
    CHECK(e.remaining == 30min);
  }
  SECTION("now or past: expired") {
    CHECK(cb::GetExpiration(
              TokenSecret("bootstrap-token-abcdef", {{"expiration", "2026-11-30T12:00:00Z"}}), now)
              .expired);
    CHECK(cb::GetExpiration(
              TokenSecret("bootstrap-token-abcdef", {{"expiration", "2020-01-01T00:00:00Z"}}), now)
              .expired);
  }
  SECTION("not RFC 3339: treated as expired") {
    CHECK(cb::GetExpiration(TokenSecret("bootstrap-token-abcdef", {{"expiration", "next tuesday"}}),
                            now)
              .expired);
  }
  SECTION("only type bootstrap.kubernetes.io/token in kube-system is watched") {
    CHECK(cb::IsWatchedTokenSecret(TokenSecret("bootstrap-token-abcdef", {})));
    CHECK(cb::IsWatchedTokenSecret(TokenSecret("any-name", {})));
    CHECK_FALSE(cb::IsWatchedTokenSecret(TokenSecret("bootstrap-token-abcdef", {}, "default")));
    CHECK_FALSE(cb::IsWatchedTokenSecret(
        TokenSecret("bootstrap-token-abcdef", {}, "kube-system", "Opaque")));
  }
}

TEST_CASE("which token secrets may sign", "[controller][bootstrap]") {
  const cb::Time now = At("2026-11-30T12:00:00Z");
  auto token = cb::TokenForSigning(SigningSecret("abcdef", "0123456789abcdef"), now);
  REQUIRE(token.has_value());
  CHECK(token->id == "abcdef");
  CHECK(token->secret == "0123456789abcdef");
  CHECK(
      cb::TokenForSigning(SigningSecret("abcdef", "0123456789abcdef", "2026-12-01T00:00:00Z"), now)
          .has_value());

  // Expired, no usage, usage not "true", id missing or not the name's, secret missing,
  // a name of another form.
  CHECK_FALSE(
      cb::TokenForSigning(SigningSecret("abcdef", "0123456789abcdef", "2026-11-30T11:59:59Z"), now)
          .has_value());
  CHECK_FALSE(cb::TokenForSigning(TokenSecret("bootstrap-token-abcdef",
                                              {{"token-id", "abcdef"}, {"token-secret", "x"}}),
                                  now)
                  .has_value());
  CHECK_FALSE(cb::TokenForSigning(
                  TokenSecret("bootstrap-token-abcdef", {{"token-id", "abcdef"},
                                                         {"token-secret", "x"},
                                                         {"usage-bootstrap-signing", "yes"}}),
                  now)
                  .has_value());
  CHECK_FALSE(
      cb::TokenForSigning(TokenSecret("bootstrap-token-abcdef",
                                      {{"token-secret", "x"}, {"usage-bootstrap-signing", "true"}}),
                          now)
          .has_value());
  CHECK_FALSE(cb::TokenForSigning(
                  TokenSecret("bootstrap-token-abcdef", {{"token-id", "zzzzzz"},
                                                         {"token-secret", "x"},
                                                         {"usage-bootstrap-signing", "true"}}),
                  now)
                  .has_value());
  CHECK_FALSE(cb::TokenForSigning(
                  TokenSecret("bootstrap-token-abcdef",
                              {{"token-id", "abcdef"}, {"usage-bootstrap-signing", "true"}}),
                  now)
                  .has_value());
  CHECK_FALSE(cb::TokenForSigning(TokenSecret("my-token", {{"token-id", "abcdef"},
                                                           {"token-secret", "x"},
                                                           {"usage-bootstrap-signing", "true"}}),
                                  now)
                  .has_value());
}

// The expected values were computed apart from this code, with Python's standard library:
//   b = lambda x: base64.urlsafe_b64encode(x).rstrip(b'=').decode()
//   h = b(json.dumps({'alg': 'HS256', 'kid': tid}, separators=(',', ':')).encode())
//   h + '..' + b(hmac.new(secret.encode(), (h + '.' + b(content.encode())).encode(),
//                         hashlib.sha256).digest())
// The header is the base64url of {"alg":"HS256","kid":"abcdef"}.
TEST_CASE("the detached JWS of a kubeconfig", "[controller][bootstrap]") {
  auto sig = bs::ComputeDetachedSignature(kKubeconfig, "abcdef", "0123456789abcdef");
  REQUIRE(sig.has_value());
  CHECK(*sig ==
        "eyJhbGciOiJIUzI1NiIsImtpZCI6ImFiY2RlZiJ9..jKg3kOlB6Z9LJP_yPH_WWCYcfiBuR_XTKqRuw_la8Wg");
  CHECK(util::Base64Decode("eyJhbGciOiJIUzI1NiIsImtpZCI6ImFiY2RlZiJ9") ==
        std::string(R"({"alg":"HS256","kid":"abcdef"})"));

  auto empty = bs::ComputeDetachedSignature("", "abcdef", "0123456789abcdef");
  REQUIRE(empty.has_value());
  CHECK(*empty ==
        "eyJhbGciOiJIUzI1NiIsImtpZCI6ImFiY2RlZiJ9..MO2tlCpY1xB334qWeOe_XEv9c6DIMRNmKJZImOzY17k");

  // A one-byte key: upstream pads keys under 32 bytes with zeros, which HMAC does anyway.
  auto short_key = bs::ComputeDetachedSignature("hello", "z9y8x7", "s");
  REQUIRE(short_key.has_value());
  CHECK(*short_key ==
        "eyJhbGciOiJIUzI1NiIsImtpZCI6Ino5eTh4NyJ9..EYqTcwklLnQgeqm0ZNbFeGaRxaoFQyv4Vh-w-QEPy8g");
}

TEST_CASE("the bootstrap signer's data for cluster-info", "[controller][bootstrap]") {
  const cb::Time now = At("2026-11-30T12:00:00Z");
  const std::string sig =
      "eyJhbGciOiJIUzI1NiIsImtpZCI6ImFiY2RlZiJ9..jKg3kOlB6Z9LJP_yPH_WWCYcfiBuR_XTKqRuw_la8Wg";
  const auto tokens = Ptrs({SigningSecret("abcdef", "0123456789abcdef")});

  SECTION("a new signature is added, the rest kept") {
    auto data =
        bs::SignedData(ClusterInfo({{"kubeconfig", kKubeconfig}, {"other", "x"}}), tokens, now);
    REQUIRE(data.has_value());
    CHECK(*data ==
          json({{"kubeconfig", kKubeconfig}, {"other", "x"}, {"jws-kubeconfig-abcdef", sig}}));
  }
  SECTION("nothing changed: no update") {
    CHECK_FALSE(
        bs::SignedData(ClusterInfo({{"kubeconfig", kKubeconfig}, {"jws-kubeconfig-abcdef", sig}}),
                       tokens, now)
            .has_value());
  }
  SECTION("a wrong signature is replaced") {
    auto data = bs::SignedData(
        ClusterInfo({{"kubeconfig", kKubeconfig}, {"jws-kubeconfig-abcdef", "forged"}}), tokens,
        now);
    REQUIRE(data.has_value());
    CHECK((*data)["jws-kubeconfig-abcdef"] == sig);
  }
  SECTION("signatures of tokens gone, expired or not for signing are removed") {
    const auto others = Ptrs(
        {SigningSecret("abcdef", "0123456789abcdef"),
         SigningSecret("expird", "0123456789abcdef", "2026-11-30T11:00:00Z"),
         TokenSecret("bootstrap-token-nosign", {{"token-id", "nosign"}, {"token-secret", "x"}})});
    auto data = bs::SignedData(ClusterInfo({{"kubeconfig", kKubeconfig},
                                            {"jws-kubeconfig-abcdef", sig},
                                            {"jws-kubeconfig-expird", "old"},
                                            {"jws-kubeconfig-nosign", "old"},
                                            {"jws-kubeconfig-gone00", "old"}}),
                               others, now);
    REQUIRE(data.has_value());
    CHECK(*data == json({{"kubeconfig", kKubeconfig}, {"jws-kubeconfig-abcdef", sig}}));
  }
  SECTION("tokens of another namespace do not sign") {
    json elsewhere = SigningSecret("abcdef", "0123456789abcdef");
    elsewhere["metadata"]["namespace"] = "default";
    CHECK_FALSE(bs::SignedData(ClusterInfo({{"kubeconfig", kKubeconfig}}), Ptrs({elsewhere}), now)
                    .has_value());
  }
  SECTION("no kubeconfig: left alone") {
    CHECK_FALSE(
        bs::SignedData(ClusterInfo({{"jws-kubeconfig-gone00", "old"}}), tokens, now).has_value());
    json no_data = ClusterInfo(json::object());
    no_data.erase("data");
    CHECK_FALSE(bs::SignedData(no_data, tokens, now).has_value());
  }
}
