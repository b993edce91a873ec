// The strategic merge patches kubectl sends (shared/KUBECTL.md 8.7, 8.10, 8.11) applied to
// realistic objects through the OpenAPI-backed schema.

#include "pkg/genericserver/apimachinery/patch/strategic_merge_patch.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/patch/openapi_patch_schema.h"
#include "test/unit/apimachinery/patch/test_schemas.h"

using apimachinery::patch::ApplyStrategicMergePatch;
using apimachinery::patch::NewOpenApiPatchSchema;
using apimachinery::patch::PatchError;
using apimachinery::patch::PatchErrorKind;
using apimachinery::patch::PatchSchema;
using nlohmann::json;

namespace {

std::shared_ptr<const PatchSchema> Schema(const char* root) {
  static const auto components =
      std::make_shared<const json>(json::parse(patch_test::kKubeComponents));
  auto schema = NewOpenApiPatchSchema(components, root);
  REQUIRE(schema);
  return *schema;
}

json Deployment() {
  return json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "app1", "namespace": "default", "uid": "6d5f1c1e", "resourceVersion": "41",
      "generation": 2, "labels": {"app": "app1"},
      "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}\n"},
      "finalizers": ["example.com/a", "example.com/b"]},
    "spec": {"replicas": 1, "revisionHistoryLimit": 10,
      "selector": {"matchLabels": {"app": "app1"}},
      "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
      "template": {"metadata": {"labels": {"app": "app1"}},
        "spec": {"restartPolicy": "Always",
          "containers": [
            {"name": "main", "image": "nginx:1.25", "imagePullPolicy": "IfNotPresent",
             "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "1"}],
             "ports": [{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 443, "protocol": "TCP"}],
             "volumeMounts": [{"name": "v1", "mountPath": "/data"}]},
            {"name": "side", "image": "busybox", "args": ["sleep", "3600"]}],
          "volumes": [{"name": "v1", "emptyDir": {}}]}}},
    "status": {"replicas": 1, "observedGeneration": 2,
      "conditions": [{"type": "Available", "status": "True"}, {"type": "Progressing", "status": "True"}]}
  })");
}

json Apply(const json& original, const char* patch,
           const char* root = "io.k8s.api.apps.v1.Deployment") {
  auto result = ApplyStrategicMergePatch(original, json::parse(patch), *Schema(root));
  INFO((result ? std::string() : result.error().message));
  REQUIRE(result);
  return *result;
}

PatchError Fail(const json& original, const char* patch) {
  auto result = ApplyStrategicMergePatch(original, json::parse(patch),
                                         *Schema("io.k8s.api.apps.v1.Deployment"));
  REQUIRE_FALSE(result);
  return result.error();
}

}  // namespace

TEST_CASE("kubectl apply: a container removed and env changed", "[patch]") {
  json result = Apply(Deployment(), R"({
    "metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{\"new\":1}\n"}},
    "spec": {"replicas": 3, "template": {"spec": {
      "$setElementOrder/containers": [{"name": "main"}],
      "containers": [{"$setElementOrder/env": [{"name": "B"}],
                      "env": [{"name": "B", "value": "2"}, {"$patch": "delete", "name": "A"}],
                      "image": "nginx:1.26", "name": "main"},
                     {"$patch": "delete", "name": "side"}]}}}})");
  json expected = Deployment();
  expected["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] =
      "{\"new\":1}\n";
  expected["spec"]["replicas"] = 3;
  json& containers = expected["spec"]["template"]["spec"]["containers"];
  containers.erase(1);
  containers[0]["image"] = "nginx:1.26";
  containers[0]["env"] = json::parse(R"([{"name": "B", "value": "2"}])");
  CHECK(result == expected);
}

TEST_CASE("kubectl apply: strategy, volume source, port and finalizer changes", "[patch]") {
  json result = Apply(Deployment(), R"({
    "metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/b"],
                 "$setElementOrder/finalizers": ["example.com/a"],
                 "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "x"}},
    "spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": null, "type": "Recreate"},
      "template": {"spec": {
        "$setElementOrder/containers": [{"name": "main"}, {"name": "side"}],
        "$setElementOrder/volumes": [{"name": "v1"}],
        "containers": [{"$setElementOrder/ports": [{"containerPort": 80}], "name": "main",
                        "ports": [{"$patch": "delete", "containerPort": 443}]}],
        "volumes": [{"$retainKeys": ["configMap", "name"], "configMap": {"name": "foo"},
                     "emptyDir": null, "name": "v1"}]}}}})");
  CHECK(result["metadata"]["finalizers"] == json::parse(R"(["example.com/a"])"));
  CHECK(result["metadata"]["annotations"] ==
        json::parse(R"({"kubectl.kubernetes.io/last-applied-configuration": "x"})"));
  CHECK(result["spec"]["strategy"] == json::parse(R"({"type": "Recreate"})"));
  const json& pod = result["spec"]["template"]["spec"];
  CHECK(pod["containers"][0]["ports"] ==
        json::parse(R"([{"containerPort": 80, "protocol": "TCP"}])"));
  CHECK(pod["containers"][1]["name"] == "side");
  CHECK(pod["volumes"] == json::parse(R"([{"name": "v1", "configMap": {"name": "foo"}}])"));
  CHECK(result["spec"]["selector"] == Deployment()["spec"]["selector"]);
  CHECK(result["status"] == Deployment()["status"]);
}

TEST_CASE("kubectl apply of a ConfigMap merges data and drops nulls", "[patch]") {
  json cm = json::parse(R"({"apiVersion": "v1", "kind": "ConfigMap",
    "metadata": {"name": "cm1", "namespace": "default", "labels": {"a": "b"},
                 "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "old"}},
    "data": {"k1": "v1", "k2": "v2"}})");
  json result = Apply(cm, R"({"data": {"k1": "v1-changed", "k2": null, "k3": "v3"},
    "metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": "new"},
                 "labels": {"a": "c"}}})",
                      "io.k8s.api.core.v1.ConfigMap");
  CHECK(result["data"] == json::parse(R"({"k1": "v1-changed", "k3": "v3"})"));
  CHECK(result["metadata"]["labels"] == json::parse(R"({"a": "c"})"));
  CHECK(result["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] ==
        "new");
  CHECK(result["metadata"]["name"] == "cm1");
}

TEST_CASE("kubectl edit and patch bodies", "[patch]") {
  json edited =
      Apply(Deployment(), R"({"metadata":{"labels":{"edited":"yes"}},"spec":{"replicas":5}})");
  CHECK(edited["metadata"]["labels"] == json::parse(R"({"app": "app1", "edited": "yes"})"));
  CHECK(edited["spec"]["replicas"] == 5);

  // A no-op patch gives back the identical object.
  CHECK(Apply(Deployment(), R"({"spec":{"replicas":1}})") == Deployment());
  CHECK(Apply(Deployment(), "{}") == Deployment());
  CHECK(Apply(Deployment(), "null") == Deployment());

  // A null for a key that is not there adds nothing (upstream discards unmatched nulls).
  json labels =
      Apply(Deployment(), R"({"spec":{"template":{"spec":{"nodeSelector":{"x":null}}}}})");
  CHECK(labels["spec"]["template"]["spec"]["nodeSelector"] == json::object());
}

TEST_CASE("Finalizers merge as a set and leave through $deleteFromPrimitiveList", "[patch]") {
  json added =
      Apply(Deployment(), R"({"metadata":{"finalizers":["example.com/c","example.com/a"]}})");
  // Patch items the server does not know come first, then the server's order resumes.
  CHECK(added["metadata"]["finalizers"] ==
        json::parse(R"(["example.com/c", "example.com/a", "example.com/b"])"));
  json removed = Apply(Deployment(),
                       R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["example.com/a"]}})");
  CHECK(removed["metadata"]["finalizers"] == json::parse(R"(["example.com/b"])"));
  json all_gone = Apply(Deployment(), R"({"metadata":{"finalizers":null}})");
  CHECK_FALSE(all_gone["metadata"].contains("finalizers"));
}

TEST_CASE("Containers, env and ports merge by their keys", "[patch]") {
  json result = Apply(Deployment(), R"({"spec":{"template":{"spec":{
    "$setElementOrder/containers": [{"name": "main"}, {"name": "side"}, {"name": "new"}],
    "containers": [
      {"name": "main", "$setElementOrder/env": [{"name": "A"}, {"name": "C"}, {"name": "B"}],
       "env": [{"name": "A", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k"}}, "value": null},
               {"name": "C", "value": "3"}],
       "ports": [{"containerPort": 8080, "name": "alt"}]},
      {"name": "new", "image": "redis", "env": [{"name": "X", "value": null}]}]}}}})");
  const json& containers = result["spec"]["template"]["spec"]["containers"];
  REQUIRE(containers.size() == 3);
  CHECK(containers[0]["env"] == json::parse(R"([
    {"name": "A", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k"}}},
    {"name": "C", "value": "3"}, {"name": "B", "value": "1"}])"));
  CHECK(containers[0]["ports"] == json::parse(R"([{"containerPort": 8080, "name": "alt"},
    {"containerPort": 80, "protocol": "TCP"}, {"containerPort": 443, "protocol": "TCP"}])"));
  CHECK(containers[1]["name"] == "side");
  CHECK(containers[2] ==
        json::parse(R"({"name": "new", "image": "redis", "env": [{"name": "X"}]})"));

  // Conditions merge by type; a list without a strategy (args) is replaced.
  json status =
      Apply(Deployment(), R"({"status":{"conditions":[{"type":"Available","status":"False"}]}})");
  CHECK(status["status"]["conditions"] == json::parse(R"([{"type": "Available", "status": "False"},
    {"type": "Progressing", "status": "True"}])"));
  json args =
      Apply(Deployment(),
            R"({"spec":{"template":{"spec":{"containers":[{"name":"side","args":["x"]}]}}}})");
  CHECK(args["spec"]["template"]["spec"]["containers"][1]["args"] == json::parse(R"(["x"])"));
}

TEST_CASE("$patch directives on maps and lists", "[patch]") {
  json replaced_map =
      Apply(Deployment(), R"({"spec":{"selector":{"$patch":"replace","matchLabels":{"x":"y"}}}})");
  CHECK(replaced_map["spec"]["selector"] == json::parse(R"({"matchLabels": {"x": "y"}})"));
  json deleted_map = Apply(Deployment(), R"({"spec":{"strategy":{"$patch":"delete"}}})");
  CHECK(deleted_map["spec"]["strategy"] == json::object());
  json replaced_list = Apply(Deployment(), R"({"spec":{"template":{"spec":{"containers":[
    {"$patch":"replace"}, {"name":"only","image":"x"}]}}}})");
  CHECK(replaced_list["spec"]["template"]["spec"]["containers"] ==
        json::parse(R"([{"name": "only", "image": "x"}])"));
  json empty_list =
      Apply(Deployment(), R"({"spec":{"template":{"spec":{"volumes":[{"$patch":"replace"}]}}}})");
  CHECK(empty_list["spec"]["template"]["spec"]["volumes"] == json::array());
}

TEST_CASE("Strategic merge patch errors carry upstream's texts and kinds", "[patch]") {
  auto no_key =
      Fail(Deployment(), R"({"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}})");
  CHECK(no_key.kind == PatchErrorKind::kInternal);
  CHECK(no_key.message == "map: map[image:x] does not contain declared merge key: name");
  auto status = apimachinery::patch::PatchErrorToStatus(no_key);
  CHECK(status.code == 500);
  CHECK(status.reason.empty());
  CHECK(apimachinery::EncodeStatus(status) ==
        R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
        R"("message":"map: map[image:x] does not contain declared merge key: name","code":500})");

  CHECK(Fail(Deployment(),
             R"({"spec":{"template":{"spec":{"containers":[{"$patch":"merge","name":"main"}]}}}})")
            .message == "merging lists cannot yet be specified in the patch");
  CHECK(Fail(Deployment(), R"({"spec":{"strategy":{"$patch":"frob"}}})").message ==
        "unknown patch type: frob in map: map[$patch:frob]");
  CHECK(Fail(Deployment(), R"({"spec":{"template":{"spec":{"containers":[{"$patch":"delete"}]}}}})")
            .message == "map: map[$patch:delete] does not contain declared merge key: name");

  auto retain =
      Fail(Deployment(), R"({"spec":{"strategy":{"$retainKeys":["type"],"paused":true}}})");
  CHECK(retain.kind == PatchErrorKind::kBadRequest);
  CHECK(retain.message == "invalid patch format of retainKeys");
  CHECK(
      Fail(Deployment(), R"({"metadata":{"$deleteFromPrimitiveListfinalizers":["a"]}})").message ==
      "invalid patch format of primitive list");
  CHECK(Fail(Deployment(), R"({"metadata":{"$setElementOrderfinalizers":["a"]}})").message ==
        "invalid patch format of setElementOrder list");

  auto order = Fail(Deployment(), R"({"spec":{"template":{"spec":{
    "$setElementOrder/containers": [{"name": "side"}],
    "containers": [{"name": "main", "image": "x"}]}}}})");
  CHECK(order.message ==
        "The order in patch list:\n[map[image:x name:main]]\n doesn't match $setElementOrder "
        "list:\n[map[name:side]]\n");

  json with_unknown = Deployment();
  with_unknown["spec"]["template"]["spec"]["extra"] = json::object();
  auto unknown = Fail(with_unknown, R"({"spec":{"template":{"spec":{"extra":{"a":1}}}}})");
  CHECK(unknown.message ==
        "unable to find api field in struct PodSpec for the json field \"extra\"");

  json no_finalizers = Deployment();
  no_finalizers["metadata"]["finalizers"] = json::array();
  auto lists_of_lists = Fail(no_finalizers, R"({"metadata":{"finalizers":[["a"]]}})");
  CHECK(lists_of_lists.kind == PatchErrorKind::kInvalid);
  CHECK(lists_of_lists.message == "lists of lists are not supported");
  CHECK(Fail(Deployment(), R"({"metadata":{"finalizers":[1]}})").message ==
        "list element types are not identical: [[example.com/a example.com/b] [1]]");

  auto not_object = Fail(Deployment(), "[]");
  CHECK(not_object.kind == PatchErrorKind::kBadRequest);
  CHECK(not_object.message ==
        "json: cannot unmarshal array into Go value of type map[string]interface {}");
}

TEST_CASE("New lists and keys taken from the patch", "[patch]") {
  json result = Apply(Deployment(), R"({"metadata":{
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u1"}]},
    "spec":{"template":{"spec":{
      "$setElementOrder/initContainers":[{"name":"init2"},{"name":"init1"}],
      "initContainers":[{"name":"init2","image":"b"},{"name":"init1","image":"a","args":null}],
      "imagePullSecrets":[{"name":"regcred"}],
      "tolerations":[{"key":"k","operator":"Exists","$patch":"delete"},{"key":"j","operator":"Exists"}]}}}})");
  const json& pod = result["spec"]["template"]["spec"];
  CHECK(pod["initContainers"] ==
        json::parse(R"([{"name": "init2", "image": "b"}, {"name": "init1", "image": "a"}])"));
  CHECK(pod["imagePullSecrets"] == json::parse(R"([{"name": "regcred"}])"));
  // Directive items are dropped from values taken as they are.
  CHECK(pod["tolerations"] == json::parse(R"([{"key": "j", "operator": "Exists"}])"));
  CHECK(result["metadata"]["ownerReferences"][0]["uid"] == "u1");

  // Owner references merge by uid.
  json owned =
      Apply(result, R"({"metadata":{"ownerReferences":[{"uid":"u1","controller":true}]}})");
  CHECK(
      owned["metadata"]["ownerReferences"] ==
      json::parse(
          R"([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u1", "controller": true}])"));

  // A new key whose value carries $patch is not added, as upstream.
  json skipped =
      Apply(Deployment(),
            R"({"spec":{"template":{"spec":{"nodeSelector":{"$patch":"replace","a":"b"}}}}})");
  CHECK_FALSE(skipped["spec"]["template"]["spec"].contains("nodeSelector"));
}
