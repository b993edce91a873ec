// autoscaling/v1 HPAs keep what only v2 can say in upstream's round-trip annotations: the
// other metrics, the current metrics, the behavior and the conditions, written as upstream's
// Go encoding writes them and read back on a v1 write.
#include <string>

#include <catch2/catch.hpp>

#include "test/unit/master/registry/chain_fixture.h"

using nlohmann::json;

namespace {

const std::string kV1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";
const std::string kV2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";

const char* const kMetrics = "autoscaling.alpha.kubernetes.io/metrics";
const char* const kCurrentMetrics = "autoscaling.alpha.kubernetes.io/current-metrics";
const char* const kConditions = "autoscaling.alpha.kubernetes.io/conditions";
const char* const kBehavior = "autoscaling.alpha.kubernetes.io/behavior";

// A v2 HPA with a CPU target, a memory and a pods metric, a behavior, current metrics and
// conditions (set through /status).
void CreateV2(testing::Chain& api) {
  api.Create(kV2, json::parse(R"({"metadata":{"name":"web","annotations":{"team":"a"}},
      "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
        "minReplicas":2,"maxReplicas":5,
        "metrics":[
          {"type":"Resource","resource":{"name":"cpu",
            "target":{"type":"Utilization","averageUtilization":60}}},
          {"type":"Resource","resource":{"name":"memory",
            "target":{"type":"Utilization","averageUtilization":70}}},
          {"type":"Pods","pods":{"metric":{"name":"qps","selector":{
              "matchLabels":{"app":"web"},
              "matchExpressions":[{"key":"tier","operator":"In","values":["front"]}]}},
            "target":{"type":"AverageValue","averageValue":"1k"}}}],
        "behavior":{
          "scaleUp":{"stabilizationWindowSeconds":0,"selectPolicy":"Max","policies":[
            {"type":"Pods","value":4,"periodSeconds":15},
            {"type":"Percent","value":100,"periodSeconds":15}]},
          "scaleDown":{"stabilizationWindowSeconds":300,"selectPolicy":"Min","policies":[
            {"type":"Percent","value":50,"periodSeconds":60}]}}}})"));
  json hpa = api.Do("GET", kV2 + "/web").Json();
  hpa["status"] = json::parse(R"({"currentReplicas":3,"desiredReplicas":3,
      "currentMetrics":[
        {"type":"Resource","resource":{"name":"cpu",
          "current":{"averageValue":"100m","averageUtilization":30}}},
        {"type":"Resource","resource":{"name":"memory",
          "current":{"averageValue":"200Mi","averageUtilization":40}}}],
      "conditions":[
        {"type":"AbleToScale","status":"True","lastTransitionTime":"2024-05-01T10:00:00Z",
         "reason":"ReadyForNewScale","message":"recommended size matches current size"},
        {"type":"ScalingLimited","status":"False","message":"desired < max & > min"}]})");
  auto r = api.Do("PUT", kV2 + "/web/status", hpa.dump());
  INFO(r.body);
  REQUIRE(r.status == 200);
}

}  // namespace

TEST_CASE("autoscaling/v1 HPAs show v2-only fields in upstream's annotations", "[builtin]") {
  testing::Chain api;
  CreateV2(api);
  json v1 = api.Do("GET", kV1 + "/web").Json();
  CHECK(v1["spec"] == json::parse(R"({"scaleTargetRef":{"apiVersion":"apps/v1",
      "kind":"Deployment","name":"web"},"minReplicas":2,"maxReplicas":5,
      "targetCPUUtilizationPercentage":60})"));
  CHECK(v1["status"] == json::parse(R"({"currentReplicas":3,"desiredReplicas":3,
      "currentCPUUtilizationPercentage":30})"));
  const json annotations = v1["metadata"]["annotations"];
  CHECK(annotations.size() == 5);
  CHECK(annotations["team"] == "a");
  // Strings exactly as json.Marshal writes upstream's Go types: v1 MetricSpec and
  // MetricStatus with their json names, the internal behavior with Go field names, and
  // conditions with HTML-safe escapes.
  CHECK(annotations[kMetrics].get<std::string>() ==
        R"([{"type":"Resource","resource":{"name":"memory","targetAverageUtilization":70}},)"
        R"({"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"1k","selector":)"
        R"({"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In",)"
        R"("values":["front"]}]}}}])");
  CHECK(annotations[kCurrentMetrics].get<std::string>() ==
        R"([{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":30,)"
        R"("currentAverageValue":"100m"}},{"type":"Resource","resource":{"name":"memory",)"
        R"("currentAverageUtilization":40,"currentAverageValue":"200Mi"}}])");
  CHECK(annotations[kBehavior].get<std::string>() ==
        R"({"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[)"
        R"({"Type":"Pods","Value":4,"PeriodSeconds":15},)"
        R"({"Type":"Percent","Value":100,"PeriodSeconds":15}]},)"
        R"("ScaleDown":{"StabilizationWindowSeconds":300,"SelectPolicy":"Min","Policies":[)"
        R"({"Type":"Percent","Value":50,"PeriodSeconds":60}]}})");
  CHECK(annotations[kConditions].get<std::string>() ==
        R"([{"type":"AbleToScale","status":"True","lastTransitionTime":"2024-05-01T10:00:00Z",)"
        R"("reason":"ReadyForNewScale","message":"recommended size matches current size"},)"
        R"({"type":"ScalingLimited","status":"False","lastTransitionTime":null,)"
        R"("message":"desired \u003c max \u0026 \u003e min"}])");
  // The same in a list.
  json listed = api.Do("GET", kV1).Json();
  REQUIRE(listed["items"].size() == 1);
  CHECK(listed["items"][0]["metadata"]["annotations"] == annotations);
  // v2 itself shows no such annotations.
  json v2 = api.Do("GET", kV2 + "/web").Json();
  CHECK(v2["metadata"]["annotations"] == json{{"team", "a"}});
}

TEST_CASE("an autoscaling/v1 write keeps the v2-only fields", "[builtin]") {
  testing::Chain api;
  CreateV2(api);
  const json before = api.Do("GET", kV2 + "/web").Json();

  // Read-modify-write through v1.
  json v1 = api.Do("GET", kV1 + "/web").Json();
  v1["spec"]["maxReplicas"] = 7;
  auto put = api.Do("PUT", kV1 + "/web", v1.dump());
  INFO(put.body);
  REQUIRE(put.status == 200);
  CHECK(put.Json()["metadata"]["annotations"] == v1["metadata"]["annotations"]);
  json v2 = api.Do("GET", kV2 + "/web").Json();
  CHECK(v2["spec"]["maxReplicas"] == 7);
  // The annotation's metrics first, the CPU target last, as upstream orders them.
  CHECK(v2["spec"]["metrics"] == json::parse(R"([
      {"type":"Resource","resource":{"name":"memory",
        "target":{"type":"Utilization","averageUtilization":70}}},
      {"type":"Pods","pods":{"metric":{"name":"qps","selector":{
          "matchLabels":{"app":"web"},
          "matchExpressions":[{"key":"tier","operator":"In","values":["front"]}]}},
        "target":{"type":"AverageValue","averageValue":"1k"}}},
      {"type":"Resource","resource":{"name":"cpu",
        "target":{"type":"Utilization","averageUtilization":60}}}])"));
  CHECK(v2["spec"]["behavior"] == before["spec"]["behavior"]);
  CHECK(v2["status"] == before["status"]);
  CHECK(v2["metadata"]["annotations"] == json{{"team", "a"}});

  // A merge patch through v1 keeps them too.
  auto patched = api.Do("PATCH", kV1 + "/web", R"({"spec":{"minReplicas":3}})",
                        {"Content-Type: application/merge-patch+json"});
  REQUIRE(patched.status == 200);
  v2 = api.Do("GET", kV2 + "/web").Json();
  CHECK(v2["spec"]["minReplicas"] == 3);
  CHECK(v2["spec"]["metrics"].size() == 3);
  CHECK(v2["spec"]["behavior"] == before["spec"]["behavior"]);

  // The status annotations are status: the main resource cannot change them, and a PUT
  // without any annotation drops the spec's but keeps the status.
  v1 = api.Do("GET", kV1 + "/web").Json();
  v1["metadata"]["annotations"][kConditions] = R"([{"type":"AbleToScale","status":"False"}])";
  REQUIRE(api.Do("PUT", kV1 + "/web", v1.dump()).status == 200);
  CHECK(api.Do("GET", kV2 + "/web").Json()["status"] == before["status"]);
  v1 = api.Do("GET", kV1 + "/web").Json();
  v1["metadata"].erase("annotations");
  REQUIRE(api.Do("PUT", kV1 + "/web", v1.dump()).status == 200);
  v2 = api.Do("GET", kV2 + "/web").Json();
  CHECK(v2["spec"]["metrics"] == json::parse(R"([{"type":"Resource","resource":{"name":"cpu",
      "target":{"type":"Utilization","averageUtilization":60}}}])"));
  CHECK(!v2["spec"].contains("behavior"));
  CHECK(v2["status"] == before["status"]);
  CHECK(!v2["metadata"].contains("annotations"));
}

TEST_CASE("autoscaling/v1 HPAs without v2-only fields have no round-trip annotations",
          "[builtin]") {
  testing::Chain api;
  json created = api.Create(kV1, json::parse(R"({"metadata":{"name":"plain"},"spec":{
      "scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
      "maxReplicas":4,"targetCPUUtilizationPercentage":50}})"));
  CHECK(!created["metadata"].contains("annotations"));
  CHECK(!api.Do("GET", kV1 + "/plain").Json()["metadata"].contains("annotations"));
  api.Create(kV2, json::parse(R"({"metadata":{"name":"v2"},"spec":{
      "scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
      "maxReplicas":3}})"));
  CHECK(!api.Do("GET", kV1 + "/v2").Json()["metadata"].contains("annotations"));
}

TEST_CASE("autoscaling/v1 round-trip annotations written by a client", "[builtin]") {
  testing::Chain api;
  // Read into the v2 fields (quantities in canonical form) and not kept as annotations;
  // the status ones are dropped on create, as status is.
  json created = api.Create(kV1, json::parse(R"({"metadata":{"name":"ext","annotations":{
      "autoscaling.alpha.kubernetes.io/metrics":
        "[{\"type\":\"External\",\"external\":{\"metricName\":\"queue\",\"targetValue\":\"0.5\"}}]",
      "autoscaling.alpha.kubernetes.io/behavior":
        "{\"scaleDown\":{\"stabilizationWindowSeconds\":60}}",
      "autoscaling.alpha.kubernetes.io/conditions":
        "[{\"type\":\"AbleToScale\",\"status\":\"True\"}]"}},
      "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
      "maxReplicas":4}})"));
  json v2 = api.Do("GET", kV2 + "/ext").Json();
  CHECK(v2["spec"]["metrics"] == json::parse(R"([{"type":"External","external":{
      "metric":{"name":"queue"},"target":{"type":"Value","value":"500m"}}}])"));
  CHECK(v2["spec"]["behavior"] ==
        json::parse(R"({"scaleDown":{"stabilizationWindowSeconds":60}})"));
  CHECK(!v2["status"].contains("conditions"));
  CHECK(!v2["metadata"].contains("annotations"));
  CHECK(created["metadata"]["annotations"][kMetrics] ==
        R"([{"type":"External","external":{"metricName":"queue","targetValue":"500m"}}])");
  CHECK(created["metadata"]["annotations"][kBehavior] ==
        R"({"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":60,"SelectPolicy":null,)"
        R"("Policies":null}})");
  CHECK(!created["spec"].contains("targetCPUUtilizationPercentage"));

  // What does not decode is ignored and dropped, as upstream ignores it.
  api.Create(kV1, json::parse(R"({"metadata":{"name":"bad","annotations":{
      "autoscaling.alpha.kubernetes.io/metrics":"abc",
      "autoscaling.alpha.kubernetes.io/behavior":"[]",
      "other":"kept"}},
      "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
      "maxReplicas":4,"targetCPUUtilizationPercentage":40}})"));
  v2 = api.Do("GET", kV2 + "/bad").Json();
  CHECK(v2["spec"]["metrics"] == json::parse(R"([{"type":"Resource","resource":{"name":"cpu",
      "target":{"type":"Utilization","averageUtilization":40}}}])"));
  CHECK(!v2["spec"].contains("behavior"));
  CHECK(v2["metadata"]["annotations"] == json{{"other", "kept"}});
}
