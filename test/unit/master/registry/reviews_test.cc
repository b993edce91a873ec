// The review APIs through the whole chain (anonymous users, AlwaysAllow): access reviews
// answered by the authorizer, the rules review, who-am-I and token reviews by the
// authenticator; created, never stored; JSON and protobuf as kubectl sends them.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/protobuf/messages.h"
#include "test/unit/master/registry/chain_fixture.h"

using nlohmann::json;
namespace pb = apimachinery::protobuf;

namespace {

constexpr char kAuthz[] = "/apis/authorization.k8s.io/v1";
constexpr char kAuthn[] = "/apis/authentication.k8s.io/v1";

}  // namespace

TEST_CASE("access reviews: the authorizer's answer, upstream's validation", "[reviews]") {
  testing::Chain api;
  auto allowed = api.Do("POST", std::string(kAuthz) + "/subjectaccessreviews",
                        R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",
                            "spec":{"user":"alice","groups":["dev"],
                              "resourceAttributes":{"verb":"list","resource":"pods",
                                                    "namespace":"default"}}})");
  REQUIRE(allowed.status == 201);
  CHECK(allowed.Json() == json::parse(R"({"apiVersion":"authorization.k8s.io/v1",
    "kind":"SubjectAccessReview","metadata":{"creationTimestamp":null},
    "spec":{"user":"alice","groups":["dev"],
      "resourceAttributes":{"verb":"list","resource":"pods","namespace":"default"}},
    "status":{"allowed":true}})"));
  // Nothing is stored: there is no GET.
  CHECK(api.Do("GET", std::string(kAuthz) + "/subjectaccessreviews").status == 405);

  auto empty = api.Do("POST", std::string(kAuthz) + "/subjectaccessreviews",
                      R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",
                          "spec":{}})");
  REQUIRE(empty.status == 422);
  CHECK(empty.Json()["message"] ==
        "SubjectAccessReview.authorization.k8s.io \"\" is invalid: [spec.resourceAttributes: "
        "Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must "
        "be specified, spec.user: Invalid value: \"\": at least one of user or group must be "
        "specified]");
  auto both = api.Do("POST", std::string(kAuthz) + "/selfsubjectaccessreviews",
                     R"({"spec":{"resourceAttributes":{"verb":"get"},
                                 "nonResourceAttributes":{"path":"/x","verb":"get"}}})");
  REQUIRE(both.status == 422);
  CHECK(both.Json()["details"]["causes"][0]["message"] ==
        "Invalid value: &authorization.NonResourceAttributes{Path:\"/x\", Verb:\"get\"}: "
        "cannot be specified in combination with resourceAttributes");

  // The local review is namespaced: its attributes' namespace must be the URL's.
  const std::string local = std::string(kAuthz) + "/namespaces/default/localsubjectaccessreviews";
  auto other_ns = api.Do("POST", local, R"({"spec":{"user":"bob",
      "resourceAttributes":{"verb":"get","resource":"pods","namespace":"kube-system"}}})");
  REQUIRE(other_ns.status == 422);
  CHECK(other_ns.Json()["details"]["causes"][0]["field"] == "spec.resourceAttributes.namespace");
  auto same_ns = api.Do("POST", local, R"({"spec":{"user":"bob",
      "resourceAttributes":{"verb":"get","resource":"pods","namespace":"default"}}})");
  REQUIRE(same_ns.status == 201);
  CHECK(same_ns.Json()["metadata"]["namespace"] == "default");
  CHECK(same_ns.Json()["status"]["allowed"] == true);
  auto moved = api.Do("POST", local, R"({"metadata":{"namespace":"elsewhere"},"spec":{"user":"b",
      "resourceAttributes":{"verb":"get","namespace":"elsewhere"}}})");
  CHECK(moved.status == 400);

  // Wrong types are refused as for any create.
  CHECK(api.Do("POST", std::string(kAuthz) + "/subjectaccessreviews",
               R"({"spec":{"user":7,"resourceAttributes":{}}})")
            .status == 400);
}

TEST_CASE("kubectl auth can-i, --list and whoami in protobuf", "[reviews]") {
  testing::Chain api;
  const std::vector<std::string> protobuf = {"Content-Type: application/vnd.kubernetes.protobuf",
                                             "Accept: application/vnd.kubernetes.protobuf, */*"};
  const json ssar = json::parse(R"({"apiVersion":"authorization.k8s.io/v1",
    "kind":"SelfSubjectAccessReview","metadata":{"creationTimestamp":null},
    "spec":{"resourceAttributes":{"namespace":"default","verb":"create","resource":"pods"}},
    "status":{"allowed":false}})");
  auto can_i = api.Do("POST", std::string(kAuthz) + "/selfsubjectaccessreviews",
                      *pb::EncodeObject(ssar), protobuf);
  REQUIRE(can_i.status == 201);
  CHECK(can_i.headers.Get("Content-Type") == "application/vnd.kubernetes.protobuf");
  auto answer = pb::ToJSON(*pb::DecodeEnvelope(can_i.body));
  REQUIRE(answer.has_value());
  CHECK((*answer)["status"]["allowed"] == true);
  CHECK((*answer)["spec"] == ssar["spec"]);

  // AlwaysAllow grants everything, and the rules say so.
  const json rules_review = json::parse(R"({"apiVersion":"authorization.k8s.io/v1",
    "kind":"SelfSubjectRulesReview","spec":{"namespace":"default"}})");
  auto list = api.Do("POST", std::string(kAuthz) + "/selfsubjectrulesreviews",
                     *pb::EncodeObject(rules_review), protobuf);
  REQUIRE(list.status == 201);
  auto rules = pb::ToJSON(*pb::DecodeEnvelope(list.body));
  REQUIRE(rules.has_value());
  CHECK((*rules)["status"]["resourceRules"] ==
        json::parse(R"([{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}])"));
  CHECK((*rules)["status"]["nonResourceRules"] ==
        json::parse(R"([{"verbs":["*"],"nonResourceURLs":["*"]}])"));
  CHECK((*rules)["status"]["incomplete"] == false);
  auto no_namespace =
      api.Do("POST", std::string(kAuthz) + "/selfsubjectrulesreviews", R"({"spec":{}})");
  CHECK(no_namespace.status == 400);

  auto whoami = api.Do("POST", std::string(kAuthn) + "/selfsubjectreviews",
                       R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})");
  REQUIRE(whoami.status == 201);
  CHECK(whoami.Json()["status"] == json::parse(R"({"userInfo":{"username":"system:anonymous",
    "groups":["system:unauthenticated"]}})"));
}

TEST_CASE("token reviews: the authenticator's view of a token", "[reviews]") {
  testing::Chain api;  // no token authenticator: no token is anyone
  auto unknown = api.Do("POST", std::string(kAuthn) + "/tokenreviews",
                        R"({"spec":{"token":"abc","audiences":["api"]}})");
  REQUIRE(unknown.status == 201);
  CHECK(unknown.Json()["status"] == json::parse(R"({"user":{}})"));
  auto missing = api.Do("POST", std::string(kAuthn) + "/tokenreviews", R"({"spec":{}})");
  REQUIRE(missing.status == 400);
  CHECK(missing.Json()["message"] == "token is required for TokenReview in authentication");
}
