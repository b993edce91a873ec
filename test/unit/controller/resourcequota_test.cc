// The resource quota controller's arithmetic (pkg/util/quantity, pkg/controller/resourcequota):
// quantities parsed, added and printed in upstream's canonical forms; the usage of pods
// (init and sidecar containers, overhead, terminal pods, scopes), services by type and
// claims per storage class; the status a sync writes.
#include <catch2/catch.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/controller/resourcequota/evaluator.h"
#include "pkg/controller/resourcequota/persistent_volume_claims.h"
#include "pkg/controller/resourcequota/pods.h"
#include "pkg/controller/resourcequota/quota_status.h"
#include "pkg/controller/resourcequota/registry.h"
#include "pkg/controller/resourcequota/services.h"
#include "pkg/controller/resourcequota/update_filter.h"
#include "pkg/controller/resourcequota/usage.h"
#include "pkg/util/quantity.h"
#include "pkg/util/timestamp.h"

namespace rq = controller::resourcequota;
using nlohmann::json;
using util::Quantity;

namespace {

std::string Canonical(const std::string& text) {
  auto q = Quantity::Parse(text);
  return q ? q->String() : "<invalid>";
}

std::string Sum(std::initializer_list<const char*> texts) {
  Quantity total;
  for (const char* t : texts) total.Add(*Quantity::Parse(t));
  return total.String();
}

const rq::TimePoint kNow = *util::ParseTime("2026-12-01T12:00:00Z");

json Container(const std::string& name, json requests, json limits = json::object()) {
  json c = {{"name", name}, {"image", "busybox"}, {"resources", json::object()}};
  if (!requests.empty()) c["resources"]["requests"] = std::move(requests);
  if (!limits.empty()) c["resources"]["limits"] = std::move(limits);
  return c;
}

json Pod(const std::string& name, json containers, json init = json::array()) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", "ns"}}},
              {"spec", {{"containers", std::move(containers)}}},
              {"status", {{"phase", "Pending"}}}};
  if (!init.empty()) pod["spec"]["initContainers"] = std::move(init);
  return pod;
}

std::map<std::string, std::string> Strings(const rq::ResourceList& list) {
  std::map<std::string, std::string> out;
  for (const auto& [name, q] : list) out[name] = q.String();
  return out;
}

// A namespace's objects per resource, as the informers would list them.
struct Fake {
  std::map<rq::GroupResource, rq::Objects> objects;
  void Put(const std::string& resource, json o) {
    objects[{"", resource}].push_back(std::make_shared<const json>(std::move(o)));
  }
  rq::ListFunc List() const {
    return [this](const rq::GroupResource& gr, const std::string& ns) {
      rq::Objects out;
      auto it = objects.find(gr);
      if (it == objects.end()) return out;
      for (const auto& o : it->second) {
        if ((*o)["metadata"].value("namespace", "") == ns) out.push_back(o);
      }
      return out;
    };
  }
};

std::map<std::string, std::string> QuotaUsage(const Fake& fake, const json& spec) {
  std::set<std::string> hard;
  for (const auto& [name, value] : spec["hard"].items()) hard.insert(name);
  const rq::Registry registry = rq::Registry::Core();
  const rq::QuotaUsage usage = rq::CalculateUsage("ns", rq::ScopeRequirements(spec), hard,
                                                  registry.List(), fake.List(), kNow);
  return Strings(usage.used);
}

}  // namespace

TEST_CASE("quantities parse and print in upstream's canonical forms",
          "[controller][resourcequota]") {
  // Decimal SI: the smallest whole mantissa with an exponent that is a multiple of three.
  CHECK(Canonical("0") == "0");
  CHECK(Canonical("0n") == "0");
  CHECK(Canonical("0Mi") == "0");
  CHECK(Canonical("1") == "1");
  CHECK(Canonical("1000m") == "1");
  CHECK(Canonical("500m") == "500m");
  CHECK(Canonical("0.5") == "500m");
  CHECK(Canonical("0.1") == "100m");
  CHECK(Canonical("1.5") == "1500m");
  CHECK(Canonical("1.001") == "1001m");
  CHECK(Canonical("0.0001") == "100u");
  CHECK(Canonical("1000000n") == "1m");
  CHECK(Canonical("1000") == "1k");
  CHECK(Canonical("1000k") == "1M");
  CHECK(Canonical("1500k") == "1500k");
  CHECK(Canonical("1000000") == "1M");
  CHECK(Canonical("1024") == "1024");
  CHECK(Canonical("10G") == "10G");
  CHECK(Canonical("+5") == "5");
  CHECK(Canonical("-500m") == "-500m");
  CHECK(Canonical(" 2 ") == "2");
  // Finer than the nano: rounded up.
  CHECK(Canonical("0.0000000001") == "1n");
  CHECK(Canonical("1.1n") == "2n");
  // Binary SI: the largest power of 1024 that keeps the mantissa whole; decimal below 1024.
  CHECK(Canonical("1Ki") == "1Ki");
  CHECK(Canonical("1024Ki") == "1Mi");
  CHECK(Canonical("1.5Gi") == "1536Mi");
  CHECK(Canonical("0.5Mi") == "512Ki");
  CHECK(Canonical("1536Ki") == "1536Ki");
  CHECK(Canonical("100Mi") == "100Mi");
  CHECK(Canonical("0.5Ki") == "512");
  CHECK(Canonical("0.1Ki") == "102400m");
  CHECK(Canonical("-1Ki") == "-1Ki");
  // Binary SI is capped at the largest int64.
  CHECK(Canonical("8Ei") == "9223372036854775807");
  // Decimal exponents stay exponents.
  CHECK(Canonical("1e3") == "1e3");
  CHECK(Canonical("1E3") == "1e3");
  CHECK(Canonical("1000e3") == "1e6");
  CHECK(Canonical("12e6") == "12e6");
  CHECK(Canonical("1.5e3") == "1500");
  CHECK(Canonical("1e-3") == "1e-3");
  CHECK(Canonical("1e21") == "1e21");
  // Decimal SI ends at E (upstream drops the suffix from 10^21 up).
  CHECK(Canonical("1000E") == "1000E");
  // Not quantities.
  for (const char* bad : {"", "abc", "1K", "1.2.3", "1Mb", "1e", "10 Gi", "1x"}) {
    INFO(bad);
    CHECK_FALSE(Quantity::Parse(bad));
  }
}

TEST_CASE("quantities add and compare by value, the sum in the first non-zero format",
          "[controller][resourcequota]") {
  CHECK(Sum({"100m", "1"}) == "1100m");
  CHECK(Sum({"500m", "500m"}) == "1");
  CHECK(Sum({"1Gi", "512Mi"}) == "1536Mi");
  CHECK(Sum({"500Mi", "524Mi"}) == "1Gi");
  CHECK(Sum({"0", "1Gi"}) == "1Gi");  // zero takes the other's format
  CHECK(Sum({"1G", "1Gi"}) == "2073741824");
  CHECK(Sum({"128Mi", "64Mi"}) == "192Mi");
  CHECK(Sum({"1M", "1Mi"}) == "2048576");
  CHECK(Sum({"2", "1e3"}) == "1002");
  CHECK(Sum({}) == "0");
  Quantity q = *Quantity::Parse("1");
  q.Sub(*Quantity::Parse("250m"));
  CHECK(q.String() == "750m");
  CHECK(Quantity::Parse("1")->Cmp(*Quantity::Parse("1000m")) == 0);
  CHECK(Quantity::Parse("1Ki")->Cmp(*Quantity::Parse("1024")) == 0);
  CHECK(Quantity::Parse("999m")->Cmp(*Quantity::Parse("1")) < 0);
  CHECK(Quantity::Parse("1Gi")->Cmp(*Quantity::Parse("1G")) > 0);
  Quantity half = *Quantity::Parse("1.5");
  CHECK_FALSE(half.RoundUpToInteger());
  CHECK(half.String() == "2");
  Quantity whole = *Quantity::Parse("3Gi");
  CHECK(whole.RoundUpToInteger());
  CHECK(whole.String() == "3Gi");
}

TEST_CASE("a pod's requests: its containers, at least each init container, plus overhead",
          "[controller][resourcequota]") {
  json pod = Pod("p",
                 {Container("a", {{"cpu", "100m"}, {"memory", "128Mi"}}, {{"cpu", "200m"}}),
                  Container("b", {{"cpu", "200m"}, {"memory", "64Mi"}}, {{"cpu", "1"}})},
                 {Container("init", {{"cpu", "500m"}, {"memory", "100Mi"}}, {{"cpu", "2"}})});
  CHECK(Strings(rq::PodRequests(pod)) ==
        std::map<std::string, std::string>{{"cpu", "500m"}, {"memory", "192Mi"}});
  CHECK(Strings(rq::PodLimits(pod)) == std::map<std::string, std::string>{{"cpu", "2"}});

  // A sidecar (restartPolicy Always) runs beside the containers and the later init ones.
  json sidecar = Container("sidecar", {{"cpu", "100m"}});
  sidecar["restartPolicy"] = "Always";
  json with_sidecar = Pod("s", {Container("main", {{"cpu", "250m"}})},
                          {sidecar, Container("init", {{"cpu", "400m"}})});
  CHECK(Strings(rq::PodRequests(with_sidecar)) ==
        std::map<std::string, std::string>{{"cpu", "500m"}});
  json small_init = Pod("s2", {Container("main", {{"cpu", "250m"}})},
                        {sidecar, Container("init", {{"cpu", "100m"}})});
  CHECK(Strings(rq::PodRequests(small_init)) ==
        std::map<std::string, std::string>{{"cpu", "350m"}});

  // Overhead adds to every request, and only to the limits that are set.
  json overhead = Pod("o", {Container("main", {{"cpu", "1"}, {"memory", "1Gi"}}, {{"cpu", "2"}})});
  overhead["spec"]["overhead"] = {{"cpu", "250m"}, {"memory", "120Mi"}};
  CHECK(Strings(rq::PodRequests(overhead)) ==
        std::map<std::string, std::string>{{"cpu", "1250m"}, {"memory", "1144Mi"}});
  CHECK(Strings(rq::PodLimits(overhead)) == std::map<std::string, std::string>{{"cpu", "2250m"}});
}

TEST_CASE("a pod's usage: compute resources unless terminal, extended resources, hugepages",
          "[controller][resourcequota]") {
  const rq::PodEvaluator pods;
  json pod = Pod("p", {Container("a",
                                 {{"cpu", "100m"},
                                  {"memory", "64Mi"},
                                  {"ephemeral-storage", "1Gi"},
                                  {"example.com/gpu", "2"},
                                  {"hugepages-2Mi", "4Mi"}},
                                 {{"cpu", "500m"}, {"memory", "128Mi"}})});
  CHECK(Strings(pods.Usage(pod, kNow)) == std::map<std::string, std::string>{
                                              {"count/pods", "1"},
                                              {"pods", "1"},
                                              {"cpu", "100m"},
                                              {"requests.cpu", "100m"},
                                              {"limits.cpu", "500m"},
                                              {"memory", "64Mi"},
                                              {"requests.memory", "64Mi"},
                                              {"limits.memory", "128Mi"},
                                              {"ephemeral-storage", "1Gi"},
                                              {"requests.ephemeral-storage", "1Gi"},
                                              {"requests.example.com/gpu", "2"},
                                              {"hugepages-2Mi", "4Mi"},
                                              {"requests.hugepages-2Mi", "4Mi"},
                                          });
  for (const char* phase : {"Succeeded", "Failed"}) {
    json done = pod;
    done["status"]["phase"] = phase;
    CHECK(Strings(pods.Usage(done, kNow)) ==
          std::map<std::string, std::string>{{"count/pods", "1"}});
  }
  // Past its deletion grace period a pod is no longer charged; within it, it is.
  json deleting = pod;
  deleting["metadata"]["deletionTimestamp"] = "2026-12-01T11:59:00Z";
  deleting["metadata"]["deletionGracePeriodSeconds"] = 30;
  CHECK_FALSE(rq::QuotaV1Pod(deleting, kNow));
  deleting["metadata"]["deletionGracePeriodSeconds"] = 120;
  CHECK(rq::QuotaV1Pod(deleting, kNow));

  const std::set<std::string> names = {
      "pods",       "requests.cpu", "count/pods",       "requests.example.com/gpu", "hugepages-1Gi",
      "configmaps", "services",     "requests.storage", "example.com/gpu"};
  CHECK(pods.MatchingResources(names) == std::set<std::string>{"pods", "requests.cpu", "count/pods",
                                                               "requests.example.com/gpu",
                                                               "hugepages-1Gi"});
}

TEST_CASE("a quota's pod usage sums the namespace's non-terminal pods within its scopes",
          "[controller][resourcequota]") {
  Fake fake;
  fake.Put("pods", Pod("a", {Container("c", {{"cpu", "250m"}, {"memory", "100Mi"}},
                                       {{"cpu", "500m"}, {"memory", "100Mi"}})}));
  json b = Pod("b", {Container("c", {{"cpu", "1"}, {"memory", "1Gi"}})});
  b["spec"]["activeDeadlineSeconds"] = 60;
  b["spec"]["priorityClassName"] = "high";
  fake.Put("pods", b);
  fake.Put("pods", Pod("besteffort", {Container("c", json::object())}));
  json done = Pod("done", {Container("c", {{"cpu", "2"}})});
  done["status"]["phase"] = "Succeeded";
  fake.Put("pods", done);
  json elsewhere = Pod("elsewhere", {Container("c", {{"cpu", "8"}})});
  elsewhere["metadata"]["namespace"] = "other";
  fake.Put("pods", elsewhere);

  const json hard = {{"pods", "10"},        {"count/pods", "10"},
                     {"requests.cpu", "4"}, {"requests.memory", "4Gi"},
                     {"limits.cpu", "4"},   {"limits.memory", "4Gi"}};
  CHECK(QuotaUsage(fake, {{"hard", hard}}) == std::map<std::string, std::string>{
                                                  {"pods", "3"},
                                                  {"count/pods", "4"},
                                                  {"requests.cpu", "1250m"},
                                                  {"requests.memory", "1124Mi"},
                                                  {"limits.cpu", "500m"},
                                                  {"limits.memory", "100Mi"},
                                              });
  CHECK(QuotaUsage(fake, {{"hard", {{"pods", "10"}}}, {"scopes", {"BestEffort"}}}) ==
        std::map<std::string, std::string>{{"pods", "1"}});
  CHECK(QuotaUsage(fake, {{"hard", {{"pods", "10"}, {"requests.cpu", "4"}}},
                          {"scopes", {"NotBestEffort", "NotTerminating"}}}) ==
        std::map<std::string, std::string>{{"pods", "1"}, {"requests.cpu", "250m"}});
  CHECK(QuotaUsage(fake, {{"hard", {{"pods", "10"}}}, {"scopes", {"Terminating"}}}) ==
        std::map<std::string, std::string>{{"pods", "1"}});
  const json high = {
      {"matchExpressions",
       {{{"scopeName", "PriorityClass"}, {"operator", "In"}, {"values", {"high"}}}}}};
  CHECK(QuotaUsage(fake, {{"hard", {{"requests.cpu", "4"}}}, {"scopeSelector", high}}) ==
        std::map<std::string, std::string>{{"requests.cpu", "1"}});
  const json not_high = {
      {"matchExpressions",
       {{{"scopeName", "PriorityClass"}, {"operator", "NotIn"}, {"values", {"high"}}}}}};
  CHECK(QuotaUsage(fake, {{"hard", {{"count/pods", "9"}}}, {"scopeSelector", not_high}}) ==
        std::map<std::string, std::string>{{"count/pods", "3"}});
  const json any_class = {
      {"matchExpressions", {{{"scopeName", "PriorityClass"}, {"operator", "Exists"}}}}};
  CHECK(QuotaUsage(fake, {{"hard", {{"pods", "9"}}}, {"scopeSelector", any_class}}) ==
        std::map<std::string, std::string>{{"pods", "1"}});
  // Kinds without scopes count nothing under a scope.
  fake.Put("configmaps", {{"metadata", {{"name", "c"}, {"namespace", "ns"}}}});
  CHECK(QuotaUsage(fake, {{"hard", {{"configmaps", "9"}}}, {"scopes", {"BestEffort"}}}) ==
        std::map<std::string, std::string>{{"configmaps", "0"}});
}

TEST_CASE("services count by type: node ports and load balancers", "[controller][resourcequota]") {
  auto service = [](const std::string& name, const std::string& type, int ports) {
    json s = {{"metadata", {{"name", name}, {"namespace", "ns"}}},
              {"spec", {{"type", type}, {"ports", json::array()}}}};
    for (int i = 0; i < ports; ++i) s["spec"]["ports"].push_back({{"port", 80 + i}});
    return s;
  };
  Fake fake;
  fake.Put("services", service("cluster", "ClusterIP", 2));
  fake.Put("services", service("node", "NodePort", 2));
  fake.Put("services", service("lb", "LoadBalancer", 1));
  json no_alloc = service("lb-no-alloc", "LoadBalancer", 2);
  no_alloc["spec"]["allocateLoadBalancerNodePorts"] = false;
  no_alloc["spec"]["ports"][0]["nodePort"] = 30001;
  fake.Put("services", no_alloc);
  fake.Put("services", service("external", "ExternalName", 0));
  const json hard = {{"services", "10"},
                     {"count/services", "10"},
                     {"services.nodeports", "10"},
                     {"services.loadbalancers", "10"}};
  CHECK(QuotaUsage(fake, {{"hard", hard}}) == std::map<std::string, std::string>{
                                                  {"services", "5"},
                                                  {"count/services", "5"},
                                                  {"services.nodeports", "4"},
                                                  {"services.loadbalancers", "2"},
                                              });
  // A type change (or a port more on a NodePort) recalculates; a label change does not.
  const rq::GroupResource services{"", "services"};
  json relabeled = service("node", "NodePort", 2);
  relabeled["metadata"]["labels"] = {{"a", "b"}};
  CHECK_FALSE(rq::RequiresReplenishment(services, service("node", "NodePort", 2), relabeled, kNow));
  CHECK(rq::RequiresReplenishment(services, service("s", "ClusterIP", 1),
                                  service("s", "NodePort", 1), kNow));
  CHECK(rq::RequiresReplenishment(services, service("s", "NodePort", 1),
                                  service("s", "NodePort", 2), kNow));
}

TEST_CASE("claims count storage in total and per storage class", "[controller][resourcequota]") {
  auto claim = [](const std::string& name, const std::string& storage) {
    return json{{"metadata", {{"name", name}, {"namespace", "ns"}}},
                {"spec", {{"resources", {{"requests", {{"storage", storage}}}}}}}};
  };
  Fake fake;
  json gold = claim("gold", "1Gi");
  gold["spec"]["storageClassName"] = "gold";
  fake.Put("persistentvolumeclaims", gold);
  json silver = claim("silver", "512Mi");
  silver["spec"]["storageClassName"] = "gold";  // the beta annotation wins
  silver["metadata"]["annotations"] = {{"volume.beta.kubernetes.io/storage-class", "silver"}};
  fake.Put("persistentvolumeclaims", silver);
  json expanded = claim("expanded", "1Gi");
  expanded["spec"]["storageClassName"] = "gold";
  expanded["status"] = {{"allocatedResources", {{"storage", "2Gi"}}}};
  fake.Put("persistentvolumeclaims", expanded);
  fake.Put("persistentvolumeclaims", claim("plain", "1.5"));  // charged 2 bytes
  const json hard = {{"persistentvolumeclaims", "10"},
                     {"count/persistentvolumeclaims", "10"},
                     {"requests.storage", "100Gi"},
                     {"gold.storageclass.storage.k8s.io/requests.storage", "10Gi"},
                     {"gold.storageclass.storage.k8s.io/persistentvolumeclaims", "5"},
                     {"silver.storageclass.storage.k8s.io/requests.storage", "10Gi"},
                     {"bronze.storageclass.storage.k8s.io/persistentvolumeclaims", "5"}};
  CHECK(QuotaUsage(fake, {{"hard", hard}}) ==
        std::map<std::string, std::string>{
            {"persistentvolumeclaims", "4"},
            {"count/persistentvolumeclaims", "4"},
            {"requests.storage", "3758096386"},
            {"gold.storageclass.storage.k8s.io/requests.storage", "3Gi"},
            {"gold.storageclass.storage.k8s.io/persistentvolumeclaims", "2"},
            {"silver.storageclass.storage.k8s.io/requests.storage", "512Mi"},
            {"bronze.storageclass.storage.k8s.io/persistentvolumeclaims", "0"},
        });
  CHECK(rq::ClaimStorage(claim("x", "1.5"))->String() == "2");
}

TEST_CASE("object counts and the names of count/ resources", "[controller][resourcequota]") {
  Fake fake;
  for (const char* name : {"a", "b"}) {
    fake.Put("configmaps", {{"metadata", {{"name", name}, {"namespace", "ns"}}}});
  }
  fake.Put("secrets", {{"metadata", {{"name", "s"}, {"namespace", "ns"}}}});
  CHECK(QuotaUsage(fake, {{"hard",
                           {{"configmaps", "5"},
                            {"count/configmaps", "5"},
                            {"secrets", "5"},
                            {"replicationcontrollers", "1"},
                            {"count/widgets.example.com", "1"}}}}) ==
        std::map<std::string, std::string>{{"configmaps", "2"},
                                           {"count/configmaps", "2"},
                                           {"secrets", "1"},
                                           {"replicationcontrollers", "0"}});
  CHECK(rq::ObjectCountResourceName({"apps", "deployments"}) == "count/deployments.apps");
  CHECK(rq::ObjectCountResourceName({"", "pods"}) == "count/pods");
  CHECK(*rq::ParseObjectCountResourceName("count/widgets.example.com") ==
        rq::GroupResource{"example.com", "widgets"});
  CHECK(*rq::ParseObjectCountResourceName("count/configmaps") ==
        rq::GroupResource{"", "configmaps"});
  CHECK_FALSE(rq::ParseObjectCountResourceName("configmaps"));
  const rq::Registry registry = rq::Registry::Core();
  CHECK(registry.UnknownCountResources(
            {"count/pods", "count/deployments.apps", "count/events", "pods"}) ==
        std::set<rq::GroupResource>{{"apps", "deployments"}});
}

TEST_CASE("a sync's status: hard mirrors spec.hard, written only when something changed",
          "[controller][resourcequota]") {
  json quota = {{"metadata", {{"name", "q"}, {"namespace", "ns"}, {"resourceVersion", "5"}}},
                {"spec", {{"hard", {{"pods", "10"}, {"requests.cpu", "2"}, {"foo", "3"}}}}},
                {"status", json::object()}};
  rq::ResourceList usage = {{"pods", Quantity(2)}, {"requests.cpu", *Quantity::Parse("500m")}};
  auto updated = rq::UpdatedQuota(quota, usage);
  REQUIRE(updated);
  CHECK((*updated)["status"] ==
        json{{"hard", {{"pods", "10"}, {"requests.cpu", "2"}, {"foo", "3"}}},
             {"used", {{"pods", "2"}, {"requests.cpu", "500m"}}}});
  CHECK((*updated)["metadata"]["resourceVersion"] == "5");
  // The same again: nothing to write, also when the old text differs but the value does not.
  json synced = *updated;
  CHECK_FALSE(rq::UpdatedQuota(synced, usage));
  synced["status"]["used"]["requests.cpu"] = "0.5";
  CHECK_FALSE(rq::UpdatedQuota(synced, usage));
  // A usage change is written; a resource dropped from spec.hard leaves status.used.
  usage["pods"] = Quantity(3);
  CHECK((*rq::UpdatedQuota(synced, usage))["status"]["used"]["pods"] == "3");
  synced["spec"]["hard"] = {{"pods", "20"}};
  updated = rq::UpdatedQuota(synced, usage);
  REQUIRE(updated);
  CHECK((*updated)["status"] == json{{"hard", {{"pods", "20"}}}, {"used", {{"pods", "3"}}}});
  // spec.hard and status.hard equal by value: no write.
  json same = *updated;
  same["status"]["hard"]["pods"] = "20000m";
  CHECK_FALSE(rq::UpdatedQuota(same, usage));
  CHECK(rq::SemanticEqual(json{{"a", "1Ki"}}, json{{"a", "1024"}}));
  CHECK_FALSE(rq::SemanticEqual(json{{"a", "1"}}, json{{"b", "1"}}));
  CHECK(rq::SemanticEqual(json(), json::object()));
}

TEST_CASE("pod updates that recalculate quotas", "[controller][resourcequota]") {
  const rq::GroupResource pods{"", "pods"};
  json pod = Pod("p", {Container("c", {{"cpu", "1"}})});
  json relabeled = pod;
  relabeled["metadata"]["labels"] = {{"a", "b"}};
  CHECK_FALSE(rq::RequiresReplenishment(pods, pod, relabeled, kNow));
  json done = pod;
  done["status"]["phase"] = "Failed";
  CHECK(rq::RequiresReplenishment(pods, pod, done, kNow));
  json deadline = pod;
  deadline["spec"]["activeDeadlineSeconds"] = 10;
  CHECK(rq::RequiresReplenishment(pods, pod, deadline, kNow));
  CHECK(rq::RequiresReplenishment({"", "persistentvolumeclaims"}, json::object(), json::object(),
                                  kNow));
  CHECK_FALSE(rq::RequiresReplenishment({"", "configmaps"}, json::object(),
                                        json{{"data", {{"a", "b"}}}}, kNow));
}
