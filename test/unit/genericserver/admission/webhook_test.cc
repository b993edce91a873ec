// The network-free parts of the admission webhooks: rules, selectors, the AdmissionReview
// and the reading of answers, with upstream's messages.
#include <stdlib.h>

#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "pkg/apiextensions/cel/schema_types.h"
#include "pkg/genericserver/admission/webhook/credentials.h"
#include "pkg/genericserver/admission/webhook/expressions.h"
#include "pkg/genericserver/admission/webhook/matching.h"
#include "pkg/genericserver/admission/webhook/review.h"
#include "pkg/util/base64.h"

using admission::Operation;
using admission::webhook::RuleRequest;
using admission::webhook::RulesMatch;
using nlohmann::json;

namespace {

json Rule(json resources, std::string scope = "*") {
  return json::array({{{"operations", {"CREATE"}},
                       {"apiGroups", {"apps"}},
                       {"apiVersions", {"v1"}},
                       {"resources", std::move(resources)},
                       {"scope", scope}}});
}

RuleRequest Deployments(std::string_view subresource = "") {
  return {Operation::kCreate, "apps", "v1", "deployments", subresource, false};
}

transport::HttpAnswer Answer(json review, int status = 200) {
  return {status, "application/json", review.dump()};
}

}  // namespace

TEST_CASE("webhook rules: resources, subresources, scope and versions", "[admission]") {
  CHECK(RulesMatch(Rule({"deployments"}), Deployments()));
  CHECK_FALSE(RulesMatch(Rule({"deployments"}), Deployments("status")));
  CHECK(RulesMatch(Rule({"*"}), Deployments()));
  CHECK_FALSE(RulesMatch(Rule({"*"}), Deployments("scale")));
  CHECK(RulesMatch(Rule({"*/*"}), Deployments("scale")));
  CHECK(RulesMatch(Rule({"deployments/*"}), Deployments()));
  CHECK(RulesMatch(Rule({"deployments/*"}), Deployments("status")));
  CHECK(RulesMatch(Rule({"*/status"}), Deployments("status")));
  CHECK_FALSE(RulesMatch(Rule({"*/status"}), Deployments()));
  CHECK_FALSE(RulesMatch(Rule({"replicasets"}), Deployments()));
  CHECK(RulesMatch(Rule({"deployments"}, "Namespaced"), Deployments()));
  CHECK_FALSE(RulesMatch(Rule({"deployments"}, "Cluster"), Deployments()));
  RuleRequest update = Deployments();
  update.operation = Operation::kUpdate;
  CHECK_FALSE(RulesMatch(Rule({"deployments"}), update));
  RuleRequest other_version = Deployments();
  other_version.version = "v2";
  CHECK_FALSE(RulesMatch(Rule({"deployments"}), other_version));
  CHECK(RulesMatch(Rule({"deployments"}), other_version, /*any_version=*/true));
  CHECK(admission::webhook::ExemptResource("admissionregistration.k8s.io",
                                           "mutatingwebhookconfigurations"));
  CHECK_FALSE(admission::webhook::ExemptResource("", "configmaps"));
}

TEST_CASE("webhook selectors: object or old object, bad selectors", "[admission]") {
  const json selector = {{"matchLabels", {{"app", "web"}}}};
  auto parsed = admission::webhook::ParseSelector(&selector);
  REQUIRE(parsed);
  const json web = {{"metadata", {{"labels", {{"app", "web"}}}}}};
  const json db = {{"metadata", {{"labels", {{"app", "db"}}}}}};
  CHECK(admission::webhook::ObjectSelectorMatches(*parsed, web, nullptr));
  CHECK_FALSE(admission::webhook::ObjectSelectorMatches(*parsed, db, nullptr));
  CHECK(admission::webhook::ObjectSelectorMatches(*parsed, db, &web));
  CHECK(admission::webhook::ObjectSelectorMatches(*parsed, json(), &web));  // a deletion
  const json bad = {{"matchExpressions", {{{"key", "a"}, {"operator", "Near"}}}}};
  auto refused = admission::webhook::ParseSelector(&bad);
  REQUIRE_FALSE(refused);
  CHECK(refused.error() == "\"Near\" is not a valid label selector operator");
  auto none = admission::webhook::ParseSelector(nullptr);
  REQUIRE(none);
  CHECK(none->Empty());
}

TEST_CASE("admission review versions and answers", "[admission]") {
  using admission::webhook::ReadAdmissionAnswer;
  CHECK(admission::webhook::ReviewVersion(json{"v2", "v1beta1", "v1"}) == "v1beta1");
  CHECK(admission::webhook::ReviewVersion(json{"v2"}).empty());

  const json ok = {{"apiVersion", "admission.k8s.io/v1"},
                   {"kind", "AdmissionReview"},
                   {"response", {{"uid", "u1"}, {"allowed", true}, {"warnings", {"w", ""}}}}};
  auto verdict = ReadAdmissionAnswer(Answer(ok), "v1", "u1", true);
  REQUIRE(verdict);
  CHECK(verdict->allowed);
  CHECK(verdict->warnings == std::vector<std::string>{"w"});
  CHECK_FALSE(verdict->patch);

  auto wrong_uid = ReadAdmissionAnswer(Answer(ok), "v1", "u2", true);
  REQUIRE_FALSE(wrong_uid);
  CHECK(wrong_uid.error().reason ==
        "received invalid webhook response: expected response.uid=\"u2\", got \"u1\"");
  // v1beta1 answers are not checked for their uid or kind.
  CHECK(ReadAdmissionAnswer(Answer(ok), "v1beta1", "u2", true));

  json wrong_kind = ok;
  wrong_kind["apiVersion"] = "admission.k8s.io/v1beta1";
  auto kind_error = ReadAdmissionAnswer(Answer(wrong_kind), "v1", "u1", true);
  REQUIRE_FALSE(kind_error);
  CHECK(kind_error.error().reason ==
        "received invalid webhook response: expected webhook response of admission.k8s.io/v1, "
        "Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview");

  json patched = ok;
  patched["response"]["patch"] = util::Base64Encode(R"([{"op":"add","path":"/data","value":{}}])");
  auto no_type = ReadAdmissionAnswer(Answer(patched), "v1", "u1", true);
  REQUIRE_FALSE(no_type);
  CHECK(no_type.error().reason ==
        "received invalid webhook response: webhook returned response.patch but not "
        "response.patchType");
  patched["response"]["patchType"] = "JSONPatch";
  auto with_patch = ReadAdmissionAnswer(Answer(patched), "v1", "u1", true);
  REQUIRE(with_patch);
  REQUIRE(with_patch->patch);
  CHECK((*with_patch->patch)[0]["op"] == "add");
  auto validating = ReadAdmissionAnswer(Answer(patched), "v1", "u1", false);
  REQUIRE_FALSE(validating);
  CHECK(validating.error().reason ==
        "received invalid webhook response: validating webhook may not return response.patch");
  patched["response"]["patchType"] = "Merge";
  CHECK(ReadAdmissionAnswer(Answer(patched), "v1", "u1", true).error().reason ==
        "received invalid webhook response: webhook returned invalid response.patchType of "
        "\"Merge\"");

  auto failed = ReadAdmissionAnswer(Answer(json::object(), 404), "v1", "u1", true);
  REQUIRE_FALSE(failed);
  CHECK(failed.error().reason ==
        "failed to call webhook: the server could not find the requested resource");
}

TEST_CASE("admission webhook denials as upstream's ToStatusErr", "[admission]") {
  using admission::webhook::DenialStatus;
  auto plain = DenialStatus("w.example.com", json());
  CHECK(plain.code == 400);
  CHECK(plain.message ==
        "admission webhook \"w.example.com\" denied the request without "
        "explanation");
  auto low = DenialStatus("w", {{"code", 200}, {"reason", "NotWanted"}});
  CHECK(low.code == 400);
  CHECK(low.message == "admission webhook \"w\" denied the request: NotWanted");
  auto full = DenialStatus("w", {{"code", 409},
                                 {"reason", "Conflict"},
                                 {"message", "taken"},
                                 {"details", {{"name", "x"}, {"causes", {{{"field", "f"}}}}}}});
  CHECK(full.code == 409);
  CHECK(full.reason == "Conflict");
  CHECK(full.message == "admission webhook \"w\" denied the request: taken");
  REQUIRE(full.details);
  CHECK(full.details->name == "x");
  CHECK(full.details->causes.at(0).field == "f");
}

TEST_CASE("admission CEL: conditions, errors and their texts", "[admission]") {
  using admission::webhook::Compile;
  using admission::webhook::ConditionsMatch;
  using admission::webhook::MatchCondition;
  namespace cel = apiextensions::cel;
  const std::vector<std::string> names = {"object"};
  const admission::webhook::Variables vars = {
      {"object", cel::JsonToValue(json{{"a", 1}}, cel::DynType())}};
  const std::vector<MatchCondition> all_true = {{"one", Compile("object.a == 1", names)},
                                                {"two", Compile("true", names)}};
  CHECK(ConditionsMatch(all_true, vars) == true);
  // A false condition wins over one that errs.
  const std::vector<MatchCondition> false_and_error = {{"err", Compile("object.b == 1", names)},
                                                       {"no", Compile("object.a == 2", names)}};
  CHECK(ConditionsMatch(false_and_error, vars) == false);
  const std::vector<MatchCondition> error = {{"err", Compile("object.b == 1", names)}};
  auto failed = ConditionsMatch(error, vars);
  REQUIRE_FALSE(failed);
  CHECK(failed.error() == "expression 'object.b == 1' resulted in error: no such key: b");
  const std::vector<MatchCondition> broken = {{"bad", Compile("object.", names)},
                                              {"err", Compile("object.b == 1", names)}};
  auto both = ConditionsMatch(broken, vars);
  REQUIRE_FALSE(both);
  CHECK(both.error().starts_with("[compilation error: ERROR: <input>:1:8: Syntax error"));
  CHECK(both.error().ends_with(", expression 'object.b == 1' resulted in error: no such key: b]"));
}

TEST_CASE("webhook credentials: users chosen by the webhook's host", "[admission]") {
  char dir[] = "/tmp/kas-webhook-credentials-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  const std::string directory = dir;
  {
    std::ofstream(directory + "/client.crt") << "CERT";
    std::ofstream(directory + "/client.key") << "KEY";
    std::ofstream(directory + "/kubeconfig")
        << "apiVersion: v1\nkind: Config\nusers:\n"
           "- name: '127.0.0.1:8443'\n  user:\n    client-certificate: client.crt\n"
           "    client-key: client.key\n    token: exact\n"
           "- name: '*.hooks.svc:443'\n  user: {token: wildcard}\n"
           "- name: 'plain.example.com'\n  user: {token: without-port}\n"
           "- name: '*'\n  user: {token: default}\n";
  }
  const json config = {{"apiVersion", "apiserver.config.k8s.io/v1"},
                       {"kind", "WebhookAdmissionConfiguration"},
                       {"kubeConfigFile", directory + "/kubeconfig"}};
  auto resolver = admission::webhook::CredentialsResolver::FromConfiguration(config.dump());
  REQUIRE(resolver);
  auto exact = (*resolver)->For("127.0.0.1:8443");
  REQUIRE(exact);
  CHECK(exact->cert_pem == "CERT");
  CHECK(exact->key_pem == "KEY");
  CHECK(exact->bearer_token == "exact");
  CHECK((*resolver)->For("webhook.hooks.svc:443")->bearer_token == "wildcard");
  CHECK((*resolver)->For("plain.example.com:443")->bearer_token == "without-port");
  CHECK((*resolver)->For("elsewhere:9443")->bearer_token == "default");
  CHECK(transport::WebhookClient::CredentialsTarget(
            json{{"url", "https://127.0.0.1:8443/check?x=1"}}) == "127.0.0.1:8443");
  CHECK(transport::WebhookClient::CredentialsTarget(
            json{{"service", {{"namespace", "hooks"}, {"name", "webhook"}}}}) ==
        "webhook.hooks.svc:443");
  auto missing = admission::webhook::CredentialsResolver::FromConfiguration(
      json{{"kubeConfigFile", directory + "/nope"}}.dump());
  REQUIRE_FALSE(missing);
  CHECK(missing.error().starts_with("couldn't read kubeConfigFile"));
}
