// core/v1 pods: what a plain manifest becomes, the rules, the table.
#include <catch2/catch.hpp>

#include "test/unit/master/registry/chain_fixture.h"

using nlohmann::json;

namespace {
constexpr char kPods[] = "/api/v1/namespaces/default/pods";

// The admission plugins that set up pods, but ServiceAccount (no account exists here).
master::Config PodAdmission() {
  master::Config m;
  m.admission_plugins = {"NamespaceLifecycle", "Priority", "DefaultTolerationSeconds"};
  return m;
}
}  // namespace

TEST_CASE("pods: a plain pod is stored with upstream's defaults and a Pending status",
          "[builtin]") {
  testing::Chain api(PodAdmission());
  json pod = api.Create(kPods, json::parse(R"({
    "metadata": {"name": "web"},
    "spec": {"containers": [{"name": "nginx", "image": "nginx:1.25",
                             "ports": [{"containerPort": 80}],
                             "livenessProbe": {"httpGet": {"port": 80}},
                             "env": [{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
                             "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}}},
                            {"name": "side", "image": "busybox"}],
             "volumes": [{"name": "scratch"}, {"name": "cfg", "configMap": {"name": "c"}}]}})"));
  const json& spec = pod["spec"];
  CHECK(spec["dnsPolicy"] == "ClusterFirst");
  CHECK(spec["restartPolicy"] == "Always");
  CHECK(spec["schedulerName"] == "default-scheduler");
  CHECK(spec["securityContext"] == json::object());
  CHECK(spec["terminationGracePeriodSeconds"] == 30);
  CHECK(spec["enableServiceLinks"] == true);
  CHECK(spec["priority"] == 0);
  CHECK(spec["preemptionPolicy"] == "PreemptLowerPriority");
  REQUIRE(spec["tolerations"].size() == 2);
  CHECK(spec["tolerations"][0] == json::parse(R"({"effect":"NoExecute",
        "key":"node.kubernetes.io/not-ready","operator":"Exists","tolerationSeconds":300})"));
  const json& c = spec["containers"][0];
  CHECK(c["imagePullPolicy"] == "IfNotPresent");
  CHECK(spec["containers"][1]["imagePullPolicy"] == "Always");  // untagged: latest
  CHECK(c["terminationMessagePath"] == "/dev/termination-log");
  CHECK(c["terminationMessagePolicy"] == "File");
  CHECK(c["ports"][0]["protocol"] == "TCP");
  CHECK(c["livenessProbe"] == json::parse(R"({"failureThreshold":3,"httpGet":{"path":"/",
        "port":80,"scheme":"HTTP"},"periodSeconds":10,"successThreshold":1,"timeoutSeconds":1})"));
  CHECK(c["env"][0]["valueFrom"]["fieldRef"]["apiVersion"] == "v1");
  // Requests default to the limits.
  CHECK(c["resources"]["requests"] == json::parse(R"({"cpu":"500m","memory":"128Mi"})"));
  CHECK(spec["containers"][1]["resources"] == json::object());
  CHECK(spec["volumes"][0]["emptyDir"] == json::object());
  CHECK(spec["volumes"][1]["configMap"]["defaultMode"] == 420);
  // One container with limits, one without: Burstable.
  CHECK(pod["status"] == json::parse(R"({"phase":"Pending","qosClass":"Burstable"})"));
}

TEST_CASE("pods: QoS classes", "[builtin]") {
  testing::Chain api;
  auto qos = [&](const std::string& name, const json& resources) {
    json pod = {
        {"metadata", {{"name", name}}},
        {"spec", {{"containers", {{{"name", "c"}, {"image", "i"}, {"resources", resources}}}}}}};
    return api.Create(kPods, pod)["status"]["qosClass"];
  };
  CHECK(qos("a", json::object()) == "BestEffort");
  CHECK(qos("b", {{"limits", {{"cpu", "1"}, {"memory", "1Gi"}}}}) == "Guaranteed");
  CHECK(qos("c", {{"limits", {{"cpu", "1"}, {"memory", "1Gi"}}},
                  {"requests", {{"cpu", "1000m"}, {"memory", "1024Mi"}}}}) == "Guaranteed");
  CHECK(qos("d", {{"requests", {{"cpu", "100m"}}}}) == "Burstable");
}

TEST_CASE("pods: invalid specs are 422 with upstream's field paths", "[builtin]") {
  testing::Chain api;
  auto r = api.Do("POST", kPods, R"({"metadata":{"name":"bad"},"spec":{
      "containers":[{"name":"a","image":"x","ports":[{"containerPort":70000}],
                     "volumeMounts":[{"name":"nope","mountPath":"/x"}]},
                    {"name":"a"}],
      "restartPolicy":"Sometimes"}})");
  REQUIRE(r.status == 422);
  const json status = r.Json();
  std::vector<std::string> fields;
  for (const json& cause : status["details"]["causes"]) fields.push_back(cause["field"]);
  CHECK(fields == std::vector<std::string>{"spec.containers[0].ports[0].containerPort",
                                           "spec.containers[0].volumeMounts[0].name",
                                           "spec.containers[1].name", "spec.containers[1].image",
                                           "spec.restartPolicy"});
  const std::string message = status["message"];
  CHECK(message.find("spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be "
                     "between 1 and 65535, inclusive") != std::string::npos);
  CHECK(message.find("spec.containers[1].name: Duplicate value: \"a\"") != std::string::npos);
  CHECK(
      message.find(
          R"(spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never")") !=
      std::string::npos);

  auto none = api.Do("POST", kPods, R"({"metadata":{"name":"empty"},"spec":{}})");
  REQUIRE(none.status == 422);
  CHECK(none.Json()["message"] == "Pod \"empty\" is invalid: spec.containers: Required value");
}

TEST_CASE("pods: an update may change images but not the rest of the spec", "[builtin]") {
  testing::Chain api;
  api.Create(kPods, json::parse(R"({"metadata":{"name":"p"},
      "spec":{"containers":[{"name":"c","image":"nginx:1"}]}})"));
  const std::string pod = std::string(kPods) + "/p";
  auto image = api.Do("PATCH", pod, R"({"spec":{"containers":[{"name":"c","image":"nginx:2"}]}})",
                      {"Content-Type: application/strategic-merge-patch+json"});
  REQUIRE(image.status == 200);
  CHECK(image.Json()["spec"]["containers"][0]["image"] == "nginx:2");
  // Status sent to the main resource is ignored.
  auto status = api.Do("PATCH", pod, R"({"status":{"phase":"Running"}})",
                       {"Content-Type: application/merge-patch+json"});
  REQUIRE(status.status == 200);
  CHECK(status.Json()["status"]["phase"] == "Pending");
  auto policy = api.Do("PATCH", pod, R"({"spec":{"restartPolicy":"Never"}})",
                       {"Content-Type: application/merge-patch+json"});
  REQUIRE(policy.status == 422);
  CHECK(policy.Json()["details"]["causes"][0]["field"] == "spec");
  CHECK(
      std::string(policy.Json()["message"]).find("pod updates may not change fields other than") !=
      std::string::npos);
  // The status subresource takes status.
  auto running = api.Do("PATCH", pod + "/status", R"({"status":{"phase":"Running"}})",
                        {"Content-Type: application/merge-patch+json"});
  REQUIRE(running.status == 200);
  CHECK(running.Json()["status"]["phase"] == "Running");
}

TEST_CASE("pods: the table shows READY, STATUS and RESTARTS; nodeName is selectable", "[builtin]") {
  testing::Chain api;
  api.Create(kPods, json::parse(R"({"metadata":{"name":"p"},
      "spec":{"nodeName":"n1","containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]}})"));
  api.Do("PATCH", std::string(kPods) + "/p/status", R"({"status":{"podIP":"10.1.0.5",
      "containerStatuses":[
        {"name":"a","ready":true,"restartCount":2,"image":"x","imageID":"","state":{"running":{}}},
        {"name":"b","ready":false,"restartCount":1,"image":"y","imageID":"",
         "state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}})",
         {"Content-Type: application/merge-patch+json"});
  auto table = api.Do("GET", kPods, "", {"Accept: application/json;as=Table;v=v1;g=meta.k8s.io"});
  REQUIRE(table.status == 200);
  const json cells = table.Json()["rows"][0]["cells"];
  CHECK(cells[0] == "p");
  CHECK(cells[1] == "1/2");
  CHECK(cells[2] == "CrashLoopBackOff");
  CHECK(cells[3] == 3);
  CHECK(cells[5] == "10.1.0.5");
  CHECK(cells[6] == "n1");
  auto on_node = api.Do("GET", std::string(kPods) + "?fieldSelector=spec.nodeName%3Dn1");
  REQUIRE(on_node.status == 200);
  CHECK(on_node.Json()["items"].size() == 1);
  auto elsewhere = api.Do("GET", std::string(kPods) + "?fieldSelector=spec.nodeName%3Dn2");
  CHECK(elsewhere.Json()["items"].empty());
}

TEST_CASE("pods: fields of later releases are kept (sidecars, sleep hooks, AppArmor)",
          "[builtin]") {
  testing::Chain api;
  json pod = api.Create(kPods, json::parse(R"({"metadata":{"name":"sidecar"},"spec":{
      "securityContext":{"appArmorProfile":{"type":"RuntimeDefault"}},
      "initContainers":[{"name":"proxy","image":"envoy","restartPolicy":"Always",
                         "lifecycle":{"preStop":{"sleep":{"seconds":5}}}}],
      "containers":[{"name":"app","image":"app:1"}]}})"));
  const json& init = pod["spec"]["initContainers"][0];
  CHECK(init["restartPolicy"] == "Always");
  CHECK(init["lifecycle"]["preStop"]["sleep"]["seconds"] == 5);
  CHECK(pod["spec"]["securityContext"]["appArmorProfile"]["type"] == "RuntimeDefault");
  auto strict = api.Do("POST", std::string(kPods) + "?fieldValidation=Strict",
                       R"({"metadata":{"name":"strict"},"spec":{"containers":[
                           {"name":"c","image":"i","restartPolicy":"Always"}]}})");
  REQUIRE(strict.status == 422);
  CHECK(strict.Json()["message"] ==
        "Pod \"strict\" is invalid: spec.containers[0].restartPolicy: Forbidden: may not be set "
        "for non-init containers");
  auto never = api.Do("POST", kPods, R"({"metadata":{"name":"never"},"spec":{
      "initContainers":[{"name":"i","image":"i","restartPolicy":"Never"}],
      "containers":[{"name":"c","image":"i"}]}})");
  REQUIRE(never.status == 422);
  CHECK(never.Json()["details"]["causes"][0]["field"] == "spec.initContainers[0].restartPolicy");
}

TEST_CASE("pods: binding assigns a node once; ephemeral containers are only added", "[builtin]") {
  testing::Chain api;
  api.Create(kPods, json::parse(R"({"metadata":{"name":"p","labels":{"app":"a"}},
      "spec":{"containers":[{"name":"c","image":"i"}]}})"));
  const std::string pod = std::string(kPods) + "/p";
  auto bound = api.Do("POST", pod + "/binding",
                      R"({"metadata":{"name":"p"},"target":{"kind":"Node","name":"n1"}})");
  REQUIRE(bound.status == 201);
  CHECK(bound.Json() == json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},
                                        "status":"Success","code":201})"));
  json stored = api.Do("GET", pod).Json();
  CHECK(stored["spec"]["nodeName"] == "n1");
  CHECK(stored["status"]["conditions"][0]["type"] == "PodScheduled");
  CHECK(stored["status"]["conditions"][0]["status"] == "True");
  auto again = api.Do("POST", pod + "/binding", R"({"target":{"name":"n2"}})");
  REQUIRE(again.status == 409);
  CHECK(again.Json()["message"] ==
        "Operation cannot be fulfilled on pods \"p\": pod p is already assigned to node \"n1\"");
  auto no_node = api.Do("POST", pod + "/binding", R"({"target":{"kind":"Pod"}})");
  CHECK(no_node.status == 422);
  // The legacy bindings collection binds the pod its body names, and is only a request.
  api.Create(kPods, json::parse(R"({"metadata":{"name":"q"},
      "spec":{"containers":[{"name":"c","image":"i"}]}})"));
  const std::string bindings = "/api/v1/namespaces/default/bindings";
  auto legacy = api.Do("POST", bindings, R"({"metadata":{"name":"q"},"target":{"name":"n3"}})");
  REQUIRE(legacy.status == 201);
  CHECK(legacy.Json()["status"] == "Success");
  CHECK(api.Do("GET", std::string(kPods) + "/q").Json()["spec"]["nodeName"] == "n3");
  CHECK(api.Do("POST", bindings, R"({"metadata":{"name":"gone"},"target":{"name":"n3"}})").status ==
        404);
  auto unnamed = api.Do("POST", bindings, R"({"target":{"name":"n3"}})");
  REQUIRE(unnamed.status == 422);
  CHECK(unnamed.Json()["details"]["causes"][0]["field"] == "metadata.name");
  CHECK(api.Do("GET", bindings).status == 405);

  auto debug = api.Do("PATCH", pod + "/ephemeralcontainers",
                      R"({"spec":{"ephemeralContainers":[{"name":"debugger","image":"busybox",
                          "targetContainerName":"c","stdin":true,"tty":true}]}})",
                      {"Content-Type: application/strategic-merge-patch+json"});
  REQUIRE(debug.status == 200);
  const json ephemeral = debug.Json()["spec"]["ephemeralContainers"][0];
  CHECK(ephemeral["terminationMessagePolicy"] == "File");
  CHECK(ephemeral["imagePullPolicy"] == "Always");
  auto removed =
      api.Do("PATCH", pod + "/ephemeralcontainers", R"({"spec":{"ephemeralContainers":null}})",
             {"Content-Type: application/merge-patch+json"});
  REQUIRE(removed.status == 422);
  CHECK(removed.Json()["details"]["causes"][0]["field"] == "spec.ephemeralContainers");
  // Other spec changes through this subresource are ignored.
  auto sneaky =
      api.Do("PATCH", pod + "/ephemeralcontainers", R"({"spec":{"activeDeadlineSeconds":5}})",
             {"Content-Type: application/merge-patch+json"});
  REQUIRE(sneaky.status == 200);
  CHECK(!sneaky.Json()["spec"].contains("activeDeadlineSeconds"));
}

TEST_CASE("pods: eviction deletes, unless a disruption budget forbids it", "[builtin]") {
  testing::Chain api;
  const std::string pods = kPods;
  for (const char* name : {"pending", "running"}) {
    api.Create(pods, json{{"metadata", {{"name", name}, {"labels", {{"app", "a"}}}}},
                          {"spec", {{"containers", {{{"name", "c"}, {"image", "i"}}}}}}});
  }
  api.Do("PATCH", pods + "/running/status", R"({"status":{"phase":"Running"}})",
         {"Content-Type: application/merge-patch+json"});
  api.Create("/apis/policy/v1/namespaces/default/poddisruptionbudgets",
             json::parse(R"({"metadata":{"name":"keep"},"spec":{"minAvailable":1,
                 "selector":{"matchLabels":{"app":"a"}}}})"));
  const char* eviction = R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"%s"}})";
  auto body = [&](const std::string& name) {
    std::string text = eviction;
    text.replace(text.find("%s"), 2, name);
    return text;
  };
  // A running pod covered by a budget that allows no disruption: 429.
  auto refused = api.Do("POST", pods + "/running/eviction", body("running"));
  REQUIRE(refused.status == 429);
  CHECK(refused.Json()["message"] ==
        "Cannot evict pod as it would violate the pod's disruption budget.");
  CHECK(refused.Json()["details"]["causes"][0]["reason"] == "DisruptionBudget");
  CHECK(api.Do("GET", pods + "/running").status == 200);
  // A pending pod ignores budgets.
  auto evicted = api.Do("POST", pods + "/pending/eviction", body("pending"));
  REQUIRE(evicted.status == 201);
  CHECK(api.Do("GET", pods + "/pending").status == 404);
  auto mismatch = api.Do("POST", pods + "/running/eviction", body("other"));
  CHECK(mismatch.status == 400);
  CHECK(api.Do("POST", pods + "/gone/eviction", body("gone")).status == 404);
}
