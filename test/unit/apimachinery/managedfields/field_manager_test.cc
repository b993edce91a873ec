// The field manager against the built-in Deployment schema: managedFields of updates as
// upstream records them, and apply's ownership, conflicts, sharing and removal.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/managedfields/field_manager.h"
#include "pkg/genericserver/registry/resource_spec.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/schemas/schemas.h"

using apimachinery::managedfields::FieldManager;
using apimachinery::managedfields::ManagerFromUserAgent;
using apimachinery::managedfields::WriteContext;
using nlohmann::json;

namespace {

const FieldManager& Deployments() {
  static const FieldManager manager([] {
    FieldManager::Options o;
    o.components = schemas::Components("apps/v1");
    o.schema_name = "io.k8s.api.apps.v1.Deployment";
    o.api_version = "apps/v1";
    o.kind = "Deployment";
    return o;
  }());
  return manager;
}

json Deployment(int replicas, const char* image = "nginx:1.27") {
  return json{{"apiVersion", "apps/v1"},
              {"kind", "Deployment"},
              {"metadata", {{"name", "web"}, {"namespace", "default"}}},
              {"spec",
               {{"replicas", replicas},
                {"selector", {{"matchLabels", {{"app", "web"}}}}},
                {"template",
                 {{"metadata", {{"labels", {{"app", "web"}}}}},
                  {"spec", {{"containers", {{{"name", "c"}, {"image", image}}}}}}}}}}};
}

WriteContext Write(const char* manager, const char* subresource = "") {
  return {manager, subresource, {{"status"}}};
}

json Entries(const json& object) {
  return object["metadata"].value("managedFields", json::array());
}

json EntryOf(const json& object, const std::string& manager) {
  for (const json& e : Entries(object)) {
    if (e["manager"] == manager) return e;
  }
  return nullptr;
}

json ApplyOk(const json* live, const json& config, const char* manager, bool force = false) {
  auto r = Deployments().Apply(live, config, Write(manager), force);
  INFO((r ? std::string() : r.error().message));
  REQUIRE(r);
  return *r;
}

}  // namespace

TEST_CASE("managers come from the User-Agent as upstream derives them", "[managedfields]") {
  CHECK(ManagerFromUserAgent("kubectl-create/v1.32.0 (linux/amd64) kubernetes/abc") ==
        "kubectl-create");
  CHECK(ManagerFromUserAgent("OpenAPI-Generator/31.0.0/python") == "OpenAPI-Generator");
  CHECK(ManagerFromUserAgent("") == "");
  CHECK(ManagerFromUserAgent(std::string(200, 'a')).size() == 128);
}

TEST_CASE("a create records an Update entry as upstream's, with the non-pointer structs",
          "[managedfields]") {
  json object = Deployment(2);
  Deployments().Update(nullptr, object, Write("kubectl-create"));
  json e = EntryOf(object, "kubectl-create");
  REQUIRE(e.is_object());
  CHECK(e["operation"] == "Update");
  CHECK(e["apiVersion"] == "apps/v1");
  CHECK(e["fieldsType"] == "FieldsV1");
  CHECK_FALSE(e.contains("subresource"));
  // spec and template exist in the empty Deployment: no "." for them; containers is a
  // required (null) list: its items are added, not the list.
  CHECK(
      e["fieldsV1"].dump() ==
      R"({"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},)"
      R"("f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{}}}}}}})");
}

TEST_CASE("updates take fields from other managers; no change keeps the time", "[managedfields]") {
  json live = Deployment(2);
  Deployments().Update(nullptr, live, Write("creator"));
  json updated = live;
  updated["spec"]["replicas"] = 5;
  Deployments().Update(&live, updated, Write("scaler"));
  CHECK(EntryOf(updated, "scaler")["fieldsV1"].dump() == R"({"f:spec":{"f:replicas":{}}})");
  CHECK_FALSE(EntryOf(updated, "creator")["fieldsV1"]["f:spec"].contains("f:replicas"));
  // The same object again: nothing changes, the entries are kept as they are.
  json again = updated;
  Deployments().Update(&updated, again, Write("scaler"));
  CHECK(Entries(again) == Entries(updated));
  // A status change through the main resource is reset: nobody gains it.
  json with_status = updated;
  with_status["status"] = {{"replicas", 5}};
  Deployments().Update(&updated, with_status, Write("other"));
  CHECK(EntryOf(with_status, "other").is_null());
}

TEST_CASE("managedFields sent by the client: kept, [{}] clears, bad ones fall back",
          "[managedfields]") {
  json live = Deployment(2);
  Deployments().Update(nullptr, live, Write("creator"));
  json cleared = live;
  cleared["metadata"]["managedFields"] = json::array({json::object()});
  cleared["metadata"]["labels"] = {{"x", "y"}};
  Deployments().Update(&live, cleared, Write("labeler"));
  REQUIRE(Entries(cleared).size() == 1);
  CHECK(EntryOf(cleared, "labeler")["fieldsV1"].dump() ==
        R"({"f:metadata":{"f:labels":{".":{},"f:x":{}}}})");
  json broken = live;
  broken["metadata"]["managedFields"] =
      json::array({{{"manager", "m"}, {"fieldsV1", {{"i:x", {}}}}}});
  Deployments().Update(&live, broken, Write("creator"));
  CHECK(Entries(broken) == Entries(live));
}

TEST_CASE("more than ten Update managers fold into ancient-changes", "[managedfields]") {
  json live = Deployment(1);
  Deployments().Update(nullptr, live, Write("m0"));
  for (int i = 1; i <= 11; ++i) {
    json next = live;
    next["metadata"]["labels"][std::to_string(i)] = "x";
    Deployments().Update(&live, next, Write(("m" + std::to_string(i)).c_str()));
    live = next;
  }
  CHECK(Entries(live).size() == 10);
  CHECK(EntryOf(live, "ancient-changes").is_object());
}

TEST_CASE("apply: create, no-op, conflict, force, sharing and removal", "[managedfields]") {
  json created = ApplyOk(nullptr, Deployment(2), "ci");
  CHECK(created["spec"]["replicas"] == 2);
  json ci = EntryOf(created, "ci");
  CHECK(ci["operation"] == "Apply");
  CHECK(ci["fieldsV1"]["f:spec"].contains("f:replicas"));

  // The same configuration: the same object and entry.
  json again = ApplyOk(&created, Deployment(2), "ci");
  CHECK(again == created);

  // Another manager changes replicas: a conflict naming the owner.
  auto conflict = Deployments().Apply(&created, Deployment(3), Write("other"), false);
  REQUIRE_FALSE(conflict);
  CHECK(conflict.error().code == 409);
  CHECK(conflict.error().reason == "Conflict");
  CHECK(conflict.error().message ==
        R"(Apply failed with 1 conflict: conflict with "ci": .spec.replicas)");
  REQUIRE(conflict.error().details);
  REQUIRE(conflict.error().details->causes.size() == 1);
  CHECK(conflict.error().details->causes[0].reason == "FieldManagerConflict");
  CHECK(conflict.error().details->causes[0].field == ".spec.replicas");

  // The same value is shared; forcing a different one takes it.
  json shared = ApplyOk(&created, Deployment(2), "other");
  CHECK(EntryOf(shared, "ci")["fieldsV1"]["f:spec"].contains("f:replicas"));
  CHECK(EntryOf(shared, "other")["fieldsV1"]["f:spec"].contains("f:replicas"));
  json forced = ApplyOk(&created, Deployment(4), "other", true);
  CHECK(forced["spec"]["replicas"] == 4);
  CHECK_FALSE(EntryOf(forced, "ci")["fieldsV1"]["f:spec"].contains("f:replicas"));

  // ci stops applying replicas while other co-owns it: kept.
  json no_replicas = Deployment(2);
  no_replicas["spec"].erase("replicas");
  json kept = ApplyOk(&shared, no_replicas, "ci");
  CHECK(kept["spec"]["replicas"] == 2);
  // ... and when ci owned it alone: removed.
  json removed = ApplyOk(&created, no_replicas, "ci");
  CHECK_FALSE(removed["spec"].contains("replicas"));
}

TEST_CASE("apply refuses configurations upstream refuses", "[managedfields]") {
  json wrong_version = Deployment(1);
  wrong_version["apiVersion"] = "apps/v1beta1";
  auto r = Deployments().Apply(nullptr, wrong_version, Write("m"), false);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == 400);
  CHECK(r.error().message ==
        "Incorrect version specified in apply patch. Specified patch version: apps/v1beta1, "
        "expected: apps/v1");
  json with_fields = Deployment(1);
  with_fields["metadata"]["managedFields"] = json::array();
  r = Deployments().Apply(nullptr, with_fields, Write("m"), false);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "metadata.managedFields must be nil");
  json dup = Deployment(1);
  dup["spec"]["template"]["spec"]["containers"].push_back({{"name", "c"}, {"image", "x"}});
  r = Deployments().Apply(nullptr, dup, Write("m"), false);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == 400);
  CHECK_THAT(
      r.error().message,
      Catch::Contains(R"(.spec.template.spec.containers: duplicate entries for key [name="c"])"));
}

TEST_CASE("kubectl's move from client-side apply does not conflict", "[managedfields]") {
  json live = Deployment(2);
  live["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] =
      Deployment(2).dump();
  Deployments().Update(nullptr, live, Write("kubectl-client-side-apply"));
  json moved = ApplyOk(&live, Deployment(3), "kubectl");
  CHECK(moved["spec"]["replicas"] == 3);
  // The annotation follows, so that client-side apply can take over again.
  CHECK(json::parse(
            moved["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
                .get<std::string>())["spec"]["replicas"] == 3);
  // Another manager than kubectl gets the conflict.
  CHECK_FALSE(Deployments().Apply(&live, Deployment(3), Write("flux"), false));
}

namespace {

// autoscaling/v2 and v1 HPAs with their field managers linked as the server links them.
struct HPAVersions {
  registry::ResourceSpecPtr v2 = master::resources::HorizontalPodAutoscalers();
  registry::ResourceSpecPtr v1 = master::resources::HorizontalPodAutoscalersV1();
  HPAVersions() {
    auto versions = std::make_shared<apimachinery::managedfields::KindVersions>();
    auto same = [](const json& o) { return o; };
    versions->Add("autoscaling/v2", v2->field_manager, same, same);
    versions->Add("autoscaling/v1", v1->field_manager,
                  master::resources::HorizontalPodAutoscalerToV2,
                  master::resources::HorizontalPodAutoscalerToV1);
    v2->field_manager->LinkVersions(versions);
    v1->field_manager->LinkVersions(versions);
  }
};

json HPAv2(int cpu) {
  return {
      {"apiVersion", "autoscaling/v2"},
      {"kind", "HorizontalPodAutoscaler"},
      {"metadata", {{"name", "web"}, {"namespace", "default"}}},
      {"spec",
       {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}}},
        {"maxReplicas", 5},
        {"metrics",
         {{{"type", "Resource"},
           {"resource",
            {{"name", "cpu"},
             {"target", {{"type", "Utilization"}, {"averageUtilization", cpu}}}}}}}}}}};
}

json HPAv1(int cpu, int max = 5) {
  return {
      {"apiVersion", "autoscaling/v1"},
      {"kind", "HorizontalPodAutoscaler"},
      {"metadata", {{"name", "web"}, {"namespace", "default"}}},
      {"spec",
       {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}}},
        {"maxReplicas", max},
        {"targetCPUUtilizationPercentage", cpu}}}};
}

}  // namespace

TEST_CASE("managers of another version are compared in theirs", "[managedfields]") {
  HPAVersions hpa;
  const auto& v1 = *hpa.v1->field_manager;
  const auto& v2 = *hpa.v2->field_manager;
  auto created = v2.Apply(nullptr, HPAv2(80), Write("autoscaler-config"), false);
  REQUIRE(created);
  CHECK(EntryOf(*created, "autoscaler-config")["apiVersion"] == "autoscaling/v2");
  // What a write through v1 reads.
  const json live_v1 = master::resources::HorizontalPodAutoscalerToV1(*created);

  // The same target through v1 is the same metrics in v2: shared, no conflict.
  auto same = v1.Apply(&live_v1, HPAv1(80), Write("tuner"), false);
  INFO((same ? std::string() : same.error().message));
  REQUIRE(same);
  // Another target changes v2's metrics, which the v2 manager owns.
  auto conflict = v1.Apply(&live_v1, HPAv1(50), Write("tuner"), false);
  REQUIRE_FALSE(conflict);
  CHECK(conflict.error().message ==
        R"(Apply failed with 1 conflict: conflict with "autoscaler-config": .spec.metrics)");
  auto forced = v1.Apply(&live_v1, HPAv1(50), Write("tuner"), true);
  REQUIRE(forced);
  json owner = EntryOf(*forced, "autoscaler-config");
  CHECK_FALSE(owner["fieldsV1"]["f:spec"].contains("f:metrics"));
  CHECK(owner["fieldsV1"]["f:spec"].contains("f:maxReplicas"));
  CHECK(EntryOf(*forced, "tuner")["apiVersion"] == "autoscaling/v1");

  // An update through v1 takes from the v2 manager what it changed in v2's terms.
  json edited = live_v1;
  edited["spec"]["maxReplicas"] = 9;
  v1.Update(&live_v1, edited, Write("kubectl-edit"));
  owner = EntryOf(edited, "autoscaler-config");
  CHECK_FALSE(owner["fieldsV1"]["f:spec"].contains("f:maxReplicas"));
  CHECK(owner["fieldsV1"]["f:spec"].contains("f:metrics"));
  CHECK(EntryOf(edited, "kubectl-edit")["fieldsV1"]["f:spec"].contains("f:maxReplicas"));
}
