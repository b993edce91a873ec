// What a write to a /status subresource may change, per kind, as upstream's status strategies
// say: one row per status subresource of the chain. The test walks discovery, so a status
// subresource served without a row here fails it.
#include <set>

#include <catch2/catch.hpp>

#include "test/unit/master/registry/chain_fixture.h"
#include "test/unit/master/registry/objects.h"

using nlohmann::json;

namespace {

const std::vector<std::string> kResetObjectMeta = {"labels", "annotations", "finalizers",
                                                   "ownerReferences"};

struct Row {
  Row(std::string gv, std::string res, std::vector<std::string> stored = {}, bool uncond = true,
      std::string object_name = "st")
      : group_version(std::move(gv)),
        resource(std::move(res)),
        stored_metadata(std::move(stored)),
        unconditional(uncond),
        name(std::move(object_name)) {}
  std::string group_version;
  std::string resource;
  // The metadata a status write cannot change (upstream keeps the stored values).
  std::vector<std::string> stored_metadata;
  // A PUT without metadata.resourceVersion is allowed.
  bool unconditional;
  std::string name;
};

std::vector<Row> Rows() {
  return {
      // Spec as stored; labels, annotations, finalizers and owner references as sent.
      {"v1", "namespaces"},
      {"v1", "nodes"},
      {"v1", "persistentvolumeclaims"},
      {"v1", "persistentvolumes"},
      {"v1", "replicationcontrollers"},
      {"v1", "resourcequotas"},
      {"v1", "services"},
      {"apps/v1", "daemonsets"},
      {"apps/v1", "replicasets"},
      {"apps/v1", "statefulsets"},
      {"autoscaling/v1", "horizontalpodautoscalers"},
      {"autoscaling/v2", "horizontalpodautoscalers", {}, true, "st-v2"},  // (the same objects)
      {"batch/v1", "jobs"},
      {"batch/v1", "cronjobs"},
      {"certificates.k8s.io/v1", "certificatesigningrequests"},
      {"networking.k8s.io/v1", "ingresses"},
      // Deployments keep their labels, pods their owner references.
      {"apps/v1", "deployments", {"labels"}},
      {"v1", "pods", {"ownerReferences"}},
      // Updates must name the resourceVersion they change.
      {"policy/v1", "poddisruptionbudgets", {}, false},
      // The object's metadata is reset (metav1.ResetObjectMetaForStatus).
      {"flowcontrol.apiserver.k8s.io/v1", "flowschemas", kResetObjectMeta},
      {"flowcontrol.apiserver.k8s.io/v1", "prioritylevelconfigurations", kResetObjectMeta},
      {"storage.k8s.io/v1", "volumeattachments", kResetObjectMeta, false},
      {"admissionregistration.k8s.io/v1", "validatingadmissionpolicies", kResetObjectMeta, false},
      {"apiregistration.k8s.io/v1", "apiservices", kResetObjectMeta, false, "v1alpha1.example.com"},
      // Upstream's reset of a CRD's metadata is a no-op (kubernetes/kubernetes#137681).
      {"apiextensions.k8s.io/v1", "customresourcedefinitions", {}, false, "widgets.example.com"},
  };
}

struct Served {
  std::string kind;
  bool namespaced = false;
};

// Every resource of the chain with a status subresource, as "<group/version>/<resource>".
std::map<std::string, Served> StatusResources(testing::Chain& api) {
  std::vector<std::string> versions = {"v1"};
  const json groups = api.Do("GET", "/apis").Json();
  for (const json& g : groups["groups"]) {
    for (const json& v : g["versions"]) versions.push_back(v["groupVersion"]);
  }
  std::map<std::string, Served> out;
  for (const std::string& gv : versions) {
    std::map<std::string, Served> kinds;
    std::set<std::string> with_status;
    const json list = api.Do("GET", testing::GroupVersionPrefix(gv)).Json();
    for (const json& r : list["resources"]) {
      const std::string name = r["name"];
      if (name.ends_with("/status")) {
        with_status.insert(name.substr(0, name.size() - 7));
      } else if (name.find('/') == std::string::npos) {
        kinds[name] = {r["kind"], r["namespaced"]};
      }
    }
    for (const std::string& name : with_status) out[gv + "/" + name] = kinds[name];
  }
  return out;
}

}  // namespace

TEST_CASE("status: every status subresource changes what upstream's does", "[builtin][status]") {
  testing::Chain api;
  const auto served = StatusResources(api);
  std::set<std::string> listed;
  const json probe = {
      {"labels", {{"probe", "changed"}}},
      {"annotations", {{"probe", "changed"}}},
      {"finalizers", {"example.com/probe"}},
      {"ownerReferences",
       {{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "owner"}, {"uid", "u-1"}}}}};
  for (const Row& row : Rows()) {
    const std::string key = row.group_version + "/" + row.resource;
    listed.insert(key);
    INFO(key);
    auto it = served.find(key);
    REQUIRE(it != served.end());
    const std::string collection = testing::GroupVersionPrefix(row.group_version) +
                                   (it->second.namespaced ? "/namespaces/default/" : "/") +
                                   row.resource;
    json object = testing::ValidBody(key);
    object["apiVersion"] = row.group_version;
    object["kind"] = it->second.kind;
    object["metadata"] = {{"name", row.name}};
    const json stored = api.Create(collection, object);
    const std::string status_path = collection + "/" + row.name + "/status";

    // Metadata probes, no spec: what comes back says what the status write kept.
    json update = stored;
    for (const auto& [field, value] : probe.items()) update["metadata"][field] = value;
    update.erase("spec");
    auto put = api.Do("PUT", status_path, update.dump());
    INFO(put.body);
    REQUIRE(put.status == 200);
    const json written = put.Json();
    CHECK(written.value("spec", json()) == stored.value("spec", json()));
    for (const auto& [field, value] : probe.items()) {
      INFO(field);
      const bool kept_as_stored = std::find(row.stored_metadata.begin(), row.stored_metadata.end(),
                                            field) != row.stored_metadata.end();
      const json& meta = written["metadata"];
      if (kept_as_stored) {
        CHECK(meta.value(field, json()) == stored["metadata"].value(field, json()));
      } else {
        CHECK(meta.value(field, json()) == value);
      }
    }

    // Without a resourceVersion.
    json unconditional = written;
    unconditional["metadata"].erase("resourceVersion");
    unconditional["metadata"].erase("finalizers");  // (a finalizer would keep it on delete)
    auto again = api.Do("PUT", status_path, unconditional.dump());
    INFO(again.body);
    if (row.unconditional) {
      CHECK(again.status == 200);
    } else {
      CHECK(again.status == 422);
      CHECK(again.Json()["message"].get<std::string>().ends_with(
          "metadata.resourceVersion: Invalid value: 0x0: must be specified for an update"));
    }
  }
  for (const auto& [key, s] : served) {
    INFO("served without a row: " << key);
    CHECK(listed.count(key) == 1);
  }
}

TEST_CASE("status: a pod's status keeps the stored QoS class when it leaves it out",
          "[builtin][status]") {
  testing::Chain api;
  json pod = testing::ValidBody("v1/pods");
  pod["metadata"] = {{"name", "q"}};
  const json stored = api.Create("/api/v1/namespaces/default/pods", pod);
  REQUIRE(stored["status"]["qosClass"] == "BestEffort");
  json update = stored;
  update["status"] = {{"phase", "Running"}};
  auto put = api.Do("PUT", "/api/v1/namespaces/default/pods/q/status", update.dump());
  REQUIRE(put.status == 200);
  CHECK(put.Json()["status"]["qosClass"] == "BestEffort");
  CHECK(put.Json()["status"]["phase"] == "Running");
}

TEST_CASE("status: no finalizer joins an object being deleted, through /status or not",
          "[builtin][status]") {
  testing::Chain api;
  const std::string ns = "/api/v1/namespaces/default";
  json svc = testing::ValidBody("v1/services");
  svc["metadata"] = {{"name", "fin"}, {"finalizers", {"example.com/a"}}};
  api.Create(ns + "/services", svc);
  REQUIRE(api.Do("DELETE", ns + "/services/fin").status == 200);
  for (const std::string& path : {ns + "/services/fin", ns + "/services/fin/status"}) {
    INFO(path);
    auto patched =
        api.Do("PATCH", path,
               R"({"metadata":{"finalizers":["example.com/a","example.com/c","example.com/b"]}})",
               {"Content-Type: application/merge-patch+json"});
    REQUIRE(patched.status == 422);
    CHECK(patched.Json()["message"] ==
          "Service \"fin\" is invalid: metadata.finalizers: Forbidden: no new finalizers can be "
          "added if the object is being deleted, found new finalizers []string{\"example.com/b\", "
          "\"example.com/c\"}");
  }
  // Removing one is what lets it go.
  auto done = api.Do("PATCH", ns + "/services/fin", R"({"metadata":{"finalizers":null}})",
                     {"Content-Type: application/merge-patch+json"});
  CHECK(done.status == 200);
  CHECK(api.Do("GET", ns + "/services/fin").status == 404);
}
