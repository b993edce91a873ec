// Resources served in two versions over one stored form: events.k8s.io/v1 events are core
// events, autoscaling/v1 HPAs are autoscaling/v2 ones.
#include <catch2/catch.hpp>

#include "pkg/genericserver/apimachinery/protobuf/messages.h"
#include "test/unit/master/registry/chain_fixture.h"

using nlohmann::json;

TEST_CASE("events.k8s.io/v1 and core/v1 events are the same objects", "[builtin]") {
  testing::Chain api;
  const std::string v1 = "/apis/events.k8s.io/v1/namespaces/default/events";
  json created = api.Create(v1, json::parse(R"({"metadata":{"name":"e1"},
      "eventTime":"2026-11-30T10:00:00.000000Z","reportingController":"example.com/ctl",
      "reportingInstance":"ctl-1","action":"Started","reason":"Testing","note":"hello",
      "type":"Normal","regarding":{"kind":"Pod","name":"p","namespace":"default"}})"));
  CHECK(created["apiVersion"] == "events.k8s.io/v1");
  CHECK(created["note"] == "hello");
  json core = api.Do("GET", "/api/v1/namespaces/default/events/e1").Json();
  CHECK(core["apiVersion"] == "v1");
  CHECK(core["message"] == "hello");
  CHECK(core["involvedObject"]["name"] == "p");
  CHECK(core["reportingComponent"] == "example.com/ctl");
  CHECK(core["metadata"]["uid"] == created["metadata"]["uid"]);

  // A core event read through events.k8s.io, listed and selected by the core fields.
  api.Create("/api/v1/namespaces/default/events", json::parse(R"({"metadata":{"name":"e2"},
      "involvedObject":{"kind":"ConfigMap","name":"cm","namespace":"default"},
      "reason":"Old","message":"old style","type":"Warning","count":3,"source":{"component":"x"}})"));
  json e2 = api.Do("GET", v1 + "/e2").Json();
  CHECK(e2["regarding"]["kind"] == "ConfigMap");
  CHECK(e2["note"] == "old style");
  CHECK(e2["deprecatedCount"] == 3);
  CHECK(e2["deprecatedSource"] == json{{"component", "x"}});
  auto selected = api.Do("GET", v1 + "?fieldSelector=involvedObject.kind%3DConfigMap");
  REQUIRE(selected.status == 200);
  const json items = selected.Json()["items"];
  REQUIRE(items.size() == 1);
  CHECK(items[0]["metadata"]["name"] == "e2");
  CHECK(items[0]["apiVersion"] == "events.k8s.io/v1");

  // events.k8s.io/v1 asks more of a new event than core does.
  auto bare = api.Do("POST", v1, R"({"metadata":{"name":"bare"},"type":"Normal"})");
  REQUIRE(bare.status == 422);
  CHECK(bare.Json()["details"]["causes"][0]["field"] == "eventTime");
  // Updates through either version land on the one object.
  auto patched = api.Do("PATCH", v1 + "/e1", R"({"note":"changed"})",
                        {"Content-Type: application/merge-patch+json"});
  REQUIRE(patched.status == 200);
  CHECK(api.Do("GET", "/api/v1/namespaces/default/events/e1").Json()["message"] == "changed");

  // In protobuf each version gets its own message, whichever was read first (the stored
  // object caches its encoding; the converted one must not reuse it).
  const std::vector<std::string> protobuf = {"Accept: application/vnd.kubernetes.protobuf"};
  for (const std::string& path : {std::string("/api/v1/namespaces/default/events/e2"), v1 + "/e2",
                                  std::string("/api/v1/namespaces/default/events/e2")}) {
    auto got = api.Do("GET", path, "", protobuf);
    REQUIRE(got.status == 200);
    auto decoded =
        apimachinery::protobuf::ToJSON(*apimachinery::protobuf::DecodeEnvelope(got.body));
    REQUIRE(decoded.has_value());
    CHECK((*decoded)["metadata"]["name"] == "e2");
    if (path == v1 + "/e2") {
      CHECK((*decoded)["apiVersion"] == "events.k8s.io/v1");
      CHECK((*decoded)["note"] == "old style");
    } else {
      CHECK((*decoded)["apiVersion"] == "v1");
      CHECK((*decoded)["message"] == "old style");
    }
  }
}

TEST_CASE("autoscaling/v1 HPAs are stored as v2: one CPU target", "[builtin]") {
  testing::Chain api;
  const std::string v1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";
  const std::string v2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
  json old = api.Create(v1, json::parse(R"({"metadata":{"name":"old"},"spec":{
      "scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
      "maxReplicas":4,"targetCPUUtilizationPercentage":50}})"));
  CHECK(old["spec"]["minReplicas"] == 1);
  CHECK(old["spec"]["targetCPUUtilizationPercentage"] == 50);
  CHECK(old["status"] == json::parse(R"({"currentReplicas":0,"desiredReplicas":0})"));
  json as_v2 = api.Do("GET", v2 + "/old").Json();
  CHECK(as_v2["apiVersion"] == "autoscaling/v2");
  CHECK(as_v2["spec"]["metrics"] == json::parse(R"([{"type":"Resource","resource":{"name":"cpu",
      "target":{"type":"Utilization","averageUtilization":50}}}])"));
  CHECK(as_v2["status"] == json::parse(R"({"desiredReplicas":0})"));

  // A v2 object read through v1; without a CPU target v1 shows v2's default.
  api.Create(v2, json::parse(R"({"metadata":{"name":"new"},"spec":{
      "scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":3}})"));
  json as_v1 = api.Do("GET", v1 + "/new").Json();
  CHECK(as_v1["apiVersion"] == "autoscaling/v1");
  CHECK(as_v1["spec"]["targetCPUUtilizationPercentage"] == 80);
  CHECK(!as_v1["spec"].contains("metrics"));
  auto listed = api.Do("GET", v1);
  CHECK(listed.Json()["items"].size() == 2);
  auto table = api.Do("GET", v1, "", {"Accept: application/json;as=Table;v=v1;g=meta.k8s.io"});
  const json rows = table.Json()["rows"];
  REQUIRE(rows.size() == 2);
  CHECK(rows[1]["cells"][2] == "cpu: <unknown>/50%");
}
