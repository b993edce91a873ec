#include <catch2/catch.hpp>

#include "pkg/genericserver/authz/authorizer.h"
#include "test/unit/support/await.h"

namespace {
endpoints::RequestInfo Info(std::string method, std::string path) {
  endpoints::RequestInfoResolver resolver;
  return *resolver.Resolve(genericserver::Request::FromTarget(std::move(method), std::move(path)));
}
authn::UserInfo User(std::string name, std::vector<std::string> groups) {
  return {std::move(name), "", std::move(groups), {}};
}
}  // namespace

TEST_CASE("forbidden messages are worded as upstream's") {
  auto anon = User("system:anonymous", {"system:unauthenticated"});
  auto path = Info("GET", "/api");
  CHECK(authz::ForbiddenMessage({anon, path}) ==
        "User \"system:anonymous\" cannot get path \"/api\"");
  auto list = Info("GET", "/api/v1/namespaces/ns/pods");
  CHECK(authz::ForbiddenMessage({anon, list}) ==
        "User \"system:anonymous\" cannot list resource \"pods\" in API group \"\" in the "
        "namespace \"ns\"");
  auto scale = Info("PUT", "/apis/apps/v1/namespaces/ns/deployments/d/scale");
  CHECK(authz::ForbiddenMessage({anon, scale}) ==
        "User \"system:anonymous\" cannot update resource \"deployments/scale\" in API group "
        "\"apps\" in the namespace \"ns\"");
  auto cluster = Info("GET", "/api/v1/nodes");
  CHECK(authz::ForbiddenMessage({anon, cluster}).ends_with("at the cluster scope"));
}

TEST_CASE("mode chain: masters always; AlwaysAllow gives anonymous users the public info only") {
  auto deny = authz::NewFromModes({"AlwaysDeny"});
  auto allow = authz::NewFromModes({"AlwaysAllow"});
  auto admin = User("admin", {"system:masters", "system:authenticated"});
  auto anon = User("system:anonymous", {"system:unauthenticated"});
  auto alice = User("alice", {"system:authenticated"});
  auto decide = [](const authz::AuthorizerPtr& a, const authn::UserInfo& u,
                   const endpoints::RequestInfo& i) {
    const authz::Attributes attributes{u, i};
    return testsupport::AwaitNow(a->Authorize(attributes)).decision;
  };
  using authz::Decision;
  auto pods = Info("GET", "/api/v1/pods");
  CHECK(decide(deny, admin, pods) == Decision::kAllow);
  CHECK(decide(deny, alice, pods) == Decision::kNoOpinion);
  const authz::Attributes alice_pods{alice, pods};
  CHECK(testsupport::AwaitNow(deny->Authorize(alice_pods)).reason == "Everything is forbidden.");
  CHECK(decide(allow, alice, pods) == Decision::kAllow);
  CHECK(decide(allow, anon, pods) == Decision::kDeny);
  for (const char* p : {"/healthz", "/livez", "/readyz", "/readyz/ping", "/version"}) {
    INFO(p);
    CHECK(decide(allow, anon, Info("GET", p)) == Decision::kAllow);
    // AlwaysDeny refuses everyone but the masters everything, as upstream.
    CHECK(decide(deny, anon, Info("GET", p)) == Decision::kNoOpinion);
  }
  CHECK(decide(allow, anon, Info("POST", "/readyz")) != Decision::kAllow);
  CHECK(decide(allow, anon, Info("GET", "/readyzfoo")) != Decision::kAllow);
  CHECK(decide(allow, anon, Info("GET", "/metrics")) != Decision::kAllow);
}

TEST_CASE("rules: what each mode grants, each rule once") {
  auto admin = User("admin", {"system:masters", "system:authenticated"});
  auto alice = User("alice", {"system:authenticated"});
  const authz::Rules everything = authz::NewFromModes({"AlwaysAllow"})->RulesFor(alice, "ns");
  REQUIRE(everything.resource_rules.size() == 1);
  CHECK(everything.resource_rules[0] == authz::ResourceRule{{"*"}, {"*"}, {"*"}, {}});
  // The public information, then AlwaysAllow's "*", in the chain's order.
  REQUIRE(everything.non_resource_rules.size() == 2);
  CHECK(everything.non_resource_rules[0].verbs == std::vector<std::string>{"get"});
  CHECK(everything.non_resource_rules[1] == authz::NonResourceRule{{"*"}, {"*"}});
  // For a master, the privileged group's "*" and AlwaysAllow's are one rule.
  CHECK(authz::NewFromModes({"AlwaysAllow"})->RulesFor(admin, "ns").resource_rules.size() == 1);
  CHECK_FALSE(everything.incomplete);

  CHECK(everything.non_resource_rules[0].non_resource_urls ==
        std::vector<std::string>{"/healthz", "/livez", "/readyz", "/version", "/version/"});
  auto deny = authz::NewFromModes({"AlwaysDeny"});
  const authz::Rules nothing = deny->RulesFor(alice, "ns");
  CHECK(nothing.resource_rules.empty());
  CHECK(nothing.non_resource_rules.empty());
  // Masters are granted everything whatever the mode.
  CHECK(deny->RulesFor(admin, "ns").resource_rules.size() == 1);
}
