// The stored kinds of the other built-in groups: defaults, the rules users meet, tables.
#include <catch2/catch.hpp>

#include "pkg/pki/pki.h"
#include "pkg/util/base64.h"
#include "test/unit/master/registry/chain_fixture.h"
#include "test/unit/master/registry/objects.h"

using nlohmann::json;

namespace {
constexpr char kTable[] = "Accept: application/json;as=Table;v=v1;g=meta.k8s.io";
constexpr char kRBAC[] = "/apis/rbac.authorization.k8s.io/v1";
}  // namespace

TEST_CASE("rbac: rules need verbs, groups and resources; a roleRef is fixed", "[builtin]") {
  testing::Chain api;
  const std::string roles = std::string(kRBAC) + "/namespaces/default/roles";
  auto bad = api.Do("POST", roles, R"({"metadata":{"name":"r"},"rules":[
      {"resources":["pods"]},{"verbs":["get"],"nonResourceURLs":["/healthz"]}]})");
  REQUIRE(bad.status == 422);
  CHECK(bad.Json()["message"] ==
        "Role.rbac.authorization.k8s.io \"r\" is invalid: [rules[0].verbs: Required value: verbs "
        "must contain at least one value, rules[0].apiGroups: Required value: resource rules must "
        "supply at least one api group, rules[1].nonResourceURLs: Invalid value: namespaced rules "
        "cannot apply to non-resource URLs]");
  api.Create(std::string(kRBAC) + "/clusterroles", json::parse(R"({"metadata":{"name":"health"},
                 "rules":[{"verbs":["get"],"nonResourceURLs":["/healthz"]}]})"));

  const std::string bindings = std::string(kRBAC) + "/namespaces/default/rolebindings";
  json binding = api.Create(bindings, json::parse(R"({"metadata":{"name":"b"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"health"},
      "subjects":[{"kind":"User","name":"jane"},{"kind":"ServiceAccount","name":"app","namespace":"default"}]})"));
  CHECK(binding["subjects"][0]["apiGroup"] == "rbac.authorization.k8s.io");
  CHECK(!binding["subjects"][1].contains("apiGroup"));
  auto moved = api.Do("PATCH", bindings + "/b", R"({"roleRef":{"name":"other"}})",
                      {"Content-Type: application/merge-patch+json"});
  REQUIRE(moved.status == 422);
  CHECK(moved.Json()["message"] ==
        "RoleBinding.rbac.authorization.k8s.io \"b\" is invalid: roleRef: Invalid value: "
        "rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", Kind:\"ClusterRole\", "
        "Name:\"other\"}: cannot change roleRef");
  auto cluster_role_ref = api.Do("POST", std::string(kRBAC) + "/clusterrolebindings",
                                 R"({"metadata":{"name":"c"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"x"},
      "subjects":[{"kind":"Robot","name":"r"}]})");
  REQUIRE(cluster_role_ref.status == 422);
  std::vector<std::string> fields;
  const json refused = cluster_role_ref.Json();
  for (const json& c : refused["details"]["causes"]) fields.push_back(c["field"]);
  CHECK(fields == std::vector<std::string>{"roleRef.kind", "subjects[0].kind"});

  auto table = api.Do("GET", bindings, "", {kTable});
  const json cells = table.Json()["rows"][0]["cells"];
  CHECK(cells[1] == "ClusterRole/health");
  CHECK(cells[3] == "jane");
  CHECK(cells[5] == "default:app");
  auto roles_table = api.Do("GET", std::string(kRBAC) + "/clusterroles", "", {kTable});
  CHECK(roles_table.Json()["columnDefinitions"][1]["name"] == "Created At");
}

TEST_CASE("priority classes: system- names are reserved, values fixed", "[builtin]") {
  testing::Chain api;
  const std::string pcs = "/apis/scheduling.k8s.io/v1/priorityclasses";
  json pc = api.Create(pcs, json::parse(R"({"metadata":{"name":"high"},"value":1000})"));
  CHECK(pc["preemptionPolicy"] == "PreemptLowerPriority");
  auto reserved = api.Do("POST", pcs, R"({"metadata":{"name":"system-mine"},"value":1})");
  REQUIRE(reserved.status == 422);
  CHECK(reserved.Json()["details"]["causes"][0]["field"] == "metadata.name");
  auto huge = api.Do("POST", pcs, R"({"metadata":{"name":"huge"},"value":2000000000})");
  CHECK(huge.status == 422);
  auto changed = api.Do("PATCH", pcs + "/high", R"({"value":5})",
                        {"Content-Type: application/merge-patch+json"});
  REQUIRE(changed.status == 422);
  CHECK(changed.Json()["details"]["causes"][0]["field"] == "value");
  // Cluster-scoped kinds are not subject to namespace admission.
  CHECK(api.Do("POST", pcs, R"({"metadata":{"name":"system-node-critical"},"value":2000001000})")
            .status == 201);
}

TEST_CASE("core: volumes, claims, replication controllers and limit ranges", "[builtin]") {
  testing::Chain api;
  json pv = api.Create("/api/v1/persistentvolumes", json::parse(R"({"metadata":{"name":"pv1"},
      "spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/d"}}})"));
  CHECK(pv["spec"]["persistentVolumeReclaimPolicy"] == "Retain");
  CHECK(pv["spec"]["volumeMode"] == "Filesystem");
  CHECK(pv["spec"]["hostPath"]["type"] == "");
  CHECK(pv["status"] == json::parse(R"({"phase":"Pending"})"));
  json pvc =
      api.Create("/api/v1/namespaces/default/persistentvolumeclaims",
                 json::parse(R"({"metadata":{"name":"c"},"spec":{"accessModes":["ReadWriteOnce"],
                            "resources":{"requests":{"storage":"1Gi"}}}})"));
  CHECK(pvc["spec"]["volumeMode"] == "Filesystem");
  auto pvc_table = api.Do("GET", "/api/v1/namespaces/default/persistentvolumeclaims", "", {kTable});
  CHECK(pvc_table.Json()["rows"][0]["cells"][1] == "Pending");

  json rc = api.Create("/api/v1/namespaces/default/replicationcontrollers",
                       json::parse(R"({"metadata":{"name":"rc"},"spec":{"template":{
                           "metadata":{"labels":{"app":"x"}},
                           "spec":{"containers":[{"name":"c","image":"i"}]}}}})"));
  CHECK(rc["spec"]["replicas"] == 1);
  CHECK(rc["spec"]["selector"] == json{{"app", "x"}});
  CHECK(rc["metadata"]["labels"] == json{{"app", "x"}});
  CHECK(rc["status"] == json::parse(R"({"replicas":0})"));

  json lr = api.Create("/api/v1/namespaces/default/limitranges",
                       json::parse(R"({"metadata":{"name":"l"},"spec":{"limits":[
                           {"type":"Container","max":{"cpu":"2"},"min":{"memory":"64Mi"}}]}})"));
  CHECK(lr["spec"]["limits"][0]["default"] == json{{"cpu", "2"}});
  CHECK(lr["spec"]["limits"][0]["defaultRequest"] == json::parse(R"({"cpu":"2","memory":"64Mi"})"));

  api.Create("/api/v1/nodes", json::parse(R"({"metadata":{"name":"n1",
      "labels":{"node-role.kubernetes.io/control-plane":""}}})"));
  auto nodes = api.Do("GET", "/api/v1/nodes", "", {kTable});
  const json cells = nodes.Json()["rows"][0]["cells"];
  CHECK(cells[1] == "Unknown");
  CHECK(cells[2] == "control-plane");
}

TEST_CASE("networking, policy, storage, autoscaling and webhook defaults", "[builtin]") {
  testing::Chain api;
  json np = api.Create("/apis/networking.k8s.io/v1/namespaces/default/networkpolicies",
                       json::parse(R"({"metadata":{"name":"np"},"spec":{"podSelector":{},
                           "egress":[{"ports":[{"port":53}]}]}})"));
  CHECK(np["spec"]["policyTypes"] == json::parse(R"(["Ingress","Egress"])"));
  CHECK(np["spec"]["egress"][0]["ports"][0]["protocol"] == "TCP");
  CHECK(np["metadata"]["generation"] == 1);

  auto no_path_type = api.Do("POST", "/apis/networking.k8s.io/v1/namespaces/default/ingresses",
                             R"({"metadata":{"name":"i"},"spec":{"rules":[{"http":{"paths":[
                                 {"path":"/","backend":{"service":{"name":"s","port":{"number":80}}}}]}}]}})");
  REQUIRE(no_path_type.status == 422);
  CHECK(no_path_type.Json()["details"]["causes"][0]["field"] ==
        "spec.rules[0].http.paths[0].pathType");

  json sc = api.Create("/apis/storage.k8s.io/v1/storageclasses",
                       json::parse(R"({"metadata":{"name":"fast"},"provisioner":"x.io/p"})"));
  CHECK(sc["reclaimPolicy"] == "Delete");
  CHECK(sc["volumeBindingMode"] == "Immediate");
  auto moved =
      api.Do("PATCH", "/apis/storage.k8s.io/v1/storageclasses/fast", R"({"provisioner":"y.io/p"})",
             {"Content-Type: application/merge-patch+json"});
  CHECK(moved.status == 422);

  json hpa = api.Create("/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
                        json::parse(R"({"metadata":{"name":"h"},"spec":{"maxReplicas":3,
                            "scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}}})"));
  CHECK(hpa["spec"]["minReplicas"] == 1);
  CHECK(hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] == 80);

  json pdb =
      api.Create("/apis/policy/v1/namespaces/default/poddisruptionbudgets",
                 json::parse(R"({"metadata":{"name":"p"},"spec":{"maxUnavailable":"25%"}})"));
  CHECK(pdb["status"]["disruptionsAllowed"] == 0);

  json hook =
      api.Create("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
                 json::parse(R"({"metadata":{"name":"v"},"webhooks":[{"name":"v.example.com",
          "sideEffects":"None","admissionReviewVersions":["v1"],
          "clientConfig":{"service":{"namespace":"default","name":"hook"}},
          "rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"]}]}]})"));
  const json& webhook = hook["webhooks"][0];
  CHECK(webhook["failurePolicy"] == "Fail");
  CHECK(webhook["matchPolicy"] == "Equivalent");
  CHECK(webhook["timeoutSeconds"] == 10);
  CHECK(webhook["namespaceSelector"] == json::object());
  CHECK(webhook["rules"][0]["scope"] == "*");
  CHECK(webhook["clientConfig"]["service"]["port"] == 443);
  CHECK(!webhook.contains("reinvocationPolicy"));
}

TEST_CASE("autoscaling/v2 HPA table: upstream's TARGETS for every metric type", "[builtin]") {
  testing::Chain api;
  const std::string hpas = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
  api.Create(hpas, json::parse(R"({"metadata":{"name":"a"},"spec":{"maxReplicas":5,
      "scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
      "metrics":[
        {"type":"Resource","resource":{"name":"memory",
          "target":{"type":"Utilization","averageUtilization":50}}},
        {"type":"Pods","pods":{"metric":{"name":"qps"},
          "target":{"type":"AverageValue","averageValue":"1k"}}},
        {"type":"External","external":{"metric":{"name":"queue"},
          "target":{"type":"Value","value":"30"}}}]}})"));
  api.Create(hpas, json::parse(R"({"metadata":{"name":"b"},"spec":{"minReplicas":2,
      "maxReplicas":4,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
      "metrics":[
        {"type":"External","external":{"metric":{"name":"queue"},
          "target":{"type":"AverageValue","averageValue":"10"}}},
        {"type":"Object","object":{"metric":{"name":"hits"},
          "describedObject":{"apiVersion":"v1","kind":"Service","name":"web"},
          "target":{"type":"Value","value":"100"}}}]}})"));
  json rows = api.Do("GET", hpas, "", {kTable}).Json()["rows"];
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["cells"][2] == "memory: <unknown>/50%, <unknown>/1k + 1 more...");
  CHECK(rows[0]["cells"][3] == "1");
  CHECK(rows[0]["cells"][4] == 5);
  CHECK(rows[0]["cells"][5] == 0);
  CHECK(rows[1]["cells"][2] == "<unknown>/10 (avg), <unknown>/100");

  // Current values from the status, matched by index.
  json a = api.Do("GET", hpas + "/a").Json();
  a["status"] = json::parse(R"({"currentReplicas":3,"desiredReplicas":3,"currentMetrics":[
      {"type":"Resource","resource":{"name":"memory","current":{"averageUtilization":40}}},
      {"type":"Pods","pods":{"metric":{"name":"qps"},"current":{"averageValue":"900"}}}]})");
  REQUIRE(api.Do("PUT", hpas + "/a/status", a.dump()).status == 200);
  json b = api.Do("GET", hpas + "/b").Json();
  b["status"] = json::parse(R"({"currentReplicas":2,"desiredReplicas":2,"currentMetrics":[
      {"type":"External","external":{"metric":{"name":"queue"},"current":{"value":"7"}}},
      {"type":"Object","object":{"metric":{"name":"hits"},
        "describedObject":{"apiVersion":"v1","kind":"Service","name":"web"},
        "current":{"value":"120"}}}]})");
  REQUIRE(api.Do("PUT", hpas + "/b/status", b.dump()).status == 200);
  rows = api.Do("GET", hpas, "", {kTable}).Json()["rows"];
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["cells"][2] == "memory: 40%/50%, 900/1k + 1 more...");
  CHECK(rows[0]["cells"][5] == 3);
  // An averaged target without a current average stays unknown.
  CHECK(rows[1]["cells"][2] == "<unknown>/10 (avg), 120/100");
}

TEST_CASE("certificate signing requests: requester recorded, approval once", "[builtin]") {
  testing::Chain api;
  const std::string csrs = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
  // The body of a valid object: a real request, whose signature the server checks.
  const std::string request =
      testing::ValidBody("certificates.k8s.io/v1/certificatesigningrequests")["spec"]["request"];
  json csr = api.Create(csrs, {{"metadata", {{"name", "jane"}}},
                               {"spec",
                                {{"request", request},
                                 {"signerName", "kubernetes.io/kube-apiserver-client"},
                                 {"usages", {"client auth"}},
                                 {"username", "someone-else"}}},
                               {"status", {{"certificate", "Zm9v"}}}});
  CHECK(csr["spec"]["username"] == "system:anonymous");
  CHECK(csr["spec"]["groups"] == json{"system:unauthenticated"});
  CHECK(!csr.contains("status"));
  auto bad = api.Do("POST", csrs,
                    json{{"metadata", {{"name", "bad"}}},
                         {"spec", {{"request", "Zm9v"}, {"expirationSeconds", 60}}}}
                        .dump());
  REQUIRE(bad.status == 422);
  std::vector<std::string> fields;
  const json refused = bad.Json();
  for (const json& c : refused["details"]["causes"]) fields.push_back(c["field"]);
  CHECK(fields == std::vector<std::string>{"spec.request", "spec.usages", "spec.signerName",
                                           "spec.expirationSeconds"});

  // kubectl certificate approve: PUT /approval with an Approved condition.
  csr["status"] = {
      {"conditions", {{{"type", "Approved"}, {"status", "True"}, {"reason", "KubectlApprove"}}}}};
  auto approved = api.Do("PUT", csrs + "/jane/approval", csr.dump());
  REQUIRE(approved.status == 200);
  const json condition = approved.Json()["status"]["conditions"][0];
  CHECK(condition["type"] == "Approved");
  CHECK(condition.contains("lastUpdateTime"));
  CHECK(condition.contains("lastTransitionTime"));
  json both = approved.Json();
  both["status"]["conditions"].push_back({{"type", "Denied"}, {"status", "True"}});
  auto denied = api.Do("PUT", csrs + "/jane/approval", both.dump());
  REQUIRE(denied.status == 422);
  CHECK(std::string(denied.Json()["message"]).find("mutually exclusive") != std::string::npos);
  // The signer issues through /status (PEM certificates only, and once); the table shows it.
  auto garbage = api.Do("PATCH", csrs + "/jane/status", R"({"status":{"certificate":"Zm9v"}})",
                        {"Content-Type: application/merge-patch+json"});
  REQUIRE(garbage.status == 422);
  CHECK(std::string(garbage.Json()["message"])
            .find("status.certificate: Invalid value: \"<certificate data>\": must contain at "
                  "least one "
                  "CERTIFICATE PEM block") != std::string::npos);
  auto ca = pki::GenerateCA("csr-test", std::chrono::hours(1));
  REQUIRE(ca);
  const json patch = {{"status", {{"certificate", util::Base64Encode(ca->cert_pem)}}}};
  auto issued = api.Do("PATCH", csrs + "/jane/status", patch.dump(),
                       {"Content-Type: application/merge-patch+json"});
  REQUIRE(issued.status == 200);
  auto again = api.Do("PATCH", csrs + "/jane/status", R"({"status":{"certificate":null}})",
                      {"Content-Type: application/merge-patch+json"});
  REQUIRE(again.status == 422);
  CHECK(std::string(again.Json()["message"])
            .find("updates may not modify existing certificate content") != std::string::npos);
  auto table = api.Do("GET", csrs, "", {kTable});
  const json cells = table.Json()["rows"][0]["cells"];
  CHECK(cells[3] == "system:anonymous");
  CHECK(cells[5] == "Approved,Issued");
}

TEST_CASE("flowcontrol v1: flow schemas and priority levels with upstream's defaults",
          "[builtin]") {
  testing::Chain api;
  const std::string base = "/apis/flowcontrol.apiserver.k8s.io/v1";
  json plc = api.Create(base + "/prioritylevelconfigurations",
                        json::parse(R"({"metadata":{"name":"workload"},"spec":{"type":"Limited",
                            "limited":{"limitResponse":{"type":"Queue"}}}})"));
  CHECK(plc["spec"]["limited"] == json::parse(R"({"nominalConcurrencyShares":30,
      "lendablePercent":0,"limitResponse":{"type":"Queue","queuing":{"queues":64,"handSize":8,
      "queueLengthLimit":50}}})"));
  // Exempt levels (GA in 1.29) keep their configuration, defaulted.
  json exempt = api.Create(base + "/prioritylevelconfigurations",
                           json::parse(R"({"metadata":{"name":"free"},"spec":{"type":"Exempt",
                               "exempt":{"lendablePercent":10}}})"));
  CHECK(exempt["spec"]["exempt"] ==
        json::parse(R"({"nominalConcurrencyShares":0,"lendablePercent":10})"));
  json fs = api.Create(base + "/flowschemas", json::parse(R"({"metadata":{"name":"mine"},"spec":{
                           "priorityLevelConfiguration":{"name":"workload"}}})"));
  CHECK(fs["spec"]["matchingPrecedence"] == 1000);
  auto table = api.Do("GET", base + "/prioritylevelconfigurations", "", {kTable});
  CHECK(table.Json()["rows"][0]["cells"][1] == "Exempt");  // "free", listed by name first
  const json cells = table.Json()["rows"][1]["cells"];
  CHECK(cells[1] == "Limited");
  CHECK(cells[2] == "30");
  CHECK(cells[3] == "64");
  auto bad = api.Do("POST", base + "/flowschemas", R"({"metadata":{"name":"x"},"spec":{}})");
  REQUIRE(bad.status == 422);
  CHECK(bad.Json()["details"]["causes"][0]["field"] == "spec.priorityLevelConfiguration.name");
}

TEST_CASE("validating admission policies and bindings are stored and validated", "[builtin]") {
  testing::Chain api;
  const std::string base = "/apis/admissionregistration.k8s.io/v1";
  json policy = api.Create(base + "/validatingadmissionpolicies", json::parse(R"({
      "metadata":{"name":"replicas"},"spec":{
        "matchConstraints":{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],
          "operations":["CREATE","UPDATE"],"resources":["deployments"]}]},
        "validations":[{"expression":"object.spec.replicas <= 5"}]}})"));
  CHECK(policy["spec"]["failurePolicy"] == "Fail");
  const json& match = policy["spec"]["matchConstraints"];
  CHECK(match["matchPolicy"] == "Equivalent");
  CHECK(match["namespaceSelector"] == json::object());
  CHECK(match["resourceRules"][0]["scope"] == "*");
  CHECK(policy["metadata"]["generation"] == 1);
  auto empty = api.Do("POST", base + "/validatingadmissionpolicies",
                      R"({"metadata":{"name":"empty"},"spec":{}})");
  REQUIRE(empty.status == 422);
  CHECK(empty.Json()["details"]["causes"][0]["field"] == "spec.validations");

  json binding = api.Create(base + "/validatingadmissionpolicybindings",
                            json::parse(R"({"metadata":{"name":"b"},"spec":{
                                "policyName":"replicas","validationActions":["Deny"]}})"));
  CHECK(binding["spec"]["policyName"] == "replicas");
  auto both = api.Do("POST", base + "/validatingadmissionpolicybindings",
                     R"({"metadata":{"name":"both"},"spec":{"policyName":"p",
                         "validationActions":["Deny","Warn"]}})");
  CHECK(both.status == 422);
  auto table = api.Do("GET", base + "/validatingadmissionpolicies", "", {kTable});
  const json cells = table.Json()["rows"][0]["cells"];
  CHECK(cells[1] == 1);
  CHECK(cells[2] == "<unset>");
}
