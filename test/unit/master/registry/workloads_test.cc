// apps/v1 and batch/v1: defaults of plain manifests, selector rules, status on create.
#include <catch2/catch.hpp>

#include "test/unit/master/registry/chain_fixture.h"

using nlohmann::json;

namespace {

constexpr char kDeployments[] = "/apis/apps/v1/namespaces/default/deployments";
constexpr char kJobs[] = "/apis/batch/v1/namespaces/default/jobs";

json Template(const std::string& app, const std::string& restart = "") {
  json t = {{"metadata", {{"labels", {{"app", app}}}}},
            {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx:1.25"}}}}}}};
  if (!restart.empty()) t["spec"]["restartPolicy"] = restart;
  return t;
}

json Selected(const std::string& name, const std::string& app) {
  return {{"metadata", {{"name", name}}},
          {"spec", {{"selector", {{"matchLabels", {{"app", app}}}}}, {"template", Template(app)}}}};
}

}  // namespace

TEST_CASE("deployments: upstream's defaults, generation, empty status", "[builtin]") {
  testing::Chain api;
  json d = api.Create(kDeployments, Selected("web", "web"));
  CHECK(d["metadata"]["generation"] == 1);
  CHECK(d["status"] == json::object());
  const json& spec = d["spec"];
  CHECK(spec["replicas"] == 1);
  CHECK(spec["revisionHistoryLimit"] == 10);
  CHECK(spec["progressDeadlineSeconds"] == 600);
  CHECK(
      spec["strategy"] ==
      json::parse(
          R"({"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}})"));
  CHECK(spec["template"]["metadata"]["creationTimestamp"].is_null());
  CHECK(spec["template"]["metadata"].contains("creationTimestamp"));
  CHECK(spec["template"]["spec"]["restartPolicy"] == "Always");
  CHECK(spec["template"]["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent");

  // Recreate takes no rollingUpdate defaults.
  json recreate = Selected("re", "re");
  recreate["spec"]["strategy"] = {{"type", "Recreate"}};
  CHECK(api.Create(kDeployments, recreate)["spec"]["strategy"] ==
        json::parse(R"({"type":"Recreate"})"));

  // A spec change bumps the generation; a label change does not.
  const std::string web = std::string(kDeployments) + "/web";
  auto scaled = api.Do("PATCH", web, R"({"spec":{"replicas":3}})",
                       {"Content-Type: application/merge-patch+json"});
  REQUIRE(scaled.status == 200);
  CHECK(scaled.Json()["metadata"]["generation"] == 2);
  auto labelled = api.Do("PATCH", web, R"({"metadata":{"labels":{"x":"y"}}})",
                         {"Content-Type: application/merge-patch+json"});
  CHECK(labelled.Json()["metadata"]["generation"] == 2);
  // Status goes through /status only, without a generation bump.
  auto status = api.Do("PATCH", web + "/status", R"({"status":{"readyReplicas":3,"replicas":3}})",
                       {"Content-Type: application/merge-patch+json"});
  REQUIRE(status.status == 200);
  CHECK(status.Json()["metadata"]["generation"] == 2);
  auto table =
      api.Do("GET", kDeployments, "", {"Accept: application/json;as=Table;v=v1;g=meta.k8s.io"});
  const json rows = table.Json()["rows"];
  REQUIRE(rows.size() == 2);
  CHECK(rows[1]["cells"][1] == "3/3");
  CHECK(rows[1]["cells"][7] == "app=web");
}

TEST_CASE("deployments: selector rules and immutability", "[builtin]") {
  testing::Chain api;
  json mismatch = Selected("bad", "web");
  mismatch["spec"]["template"]["metadata"]["labels"]["app"] = "other";
  auto r = api.Do("POST", kDeployments, mismatch.dump());
  REQUIRE(r.status == 422);
  CHECK(r.Json()["message"] ==
        "Deployment.apps \"bad\" is invalid: spec.template.metadata.labels: Invalid value: "
        "map[string]string{\"app\":\"other\"}: `selector` does not match template `labels`");

  json none = Selected("none", "web");
  none["spec"].erase("selector");
  auto missing = api.Do("POST", kDeployments, none.dump());
  REQUIRE(missing.status == 422);
  CHECK(missing.Json()["details"]["causes"][0]["field"] == "spec.selector");

  json restart = Selected("restart", "web");
  restart["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure";
  auto policy = api.Do("POST", kDeployments, restart.dump());
  REQUIRE(policy.status == 422);
  CHECK(
      std::string(policy.Json()["message"])
          .find(
              R"(spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always")") !=
      std::string::npos);

  api.Create(kDeployments, Selected("web", "web"));
  json changed = Selected("web", "web2");
  auto immutable = api.Do("PUT", std::string(kDeployments) + "/web", changed.dump());
  REQUIRE(immutable.status == 422);
  CHECK(std::string(immutable.Json()["message"])
            .find("spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"
                  "\"app\":\"web2\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field "
                  "is immutable") != std::string::npos);
}

TEST_CASE("replicasets, statefulsets, daemonsets: defaults and initial status", "[builtin]") {
  testing::Chain api;
  json rs = api.Create("/apis/apps/v1/namespaces/default/replicasets", Selected("rs", "rs"));
  CHECK(rs["spec"]["replicas"] == 1);
  CHECK(rs["status"] == json::parse(R"({"replicas":0})"));

  json sts = Selected("sts", "sts");
  sts["spec"]["serviceName"] = "sts";
  sts["spec"]["template"]["spec"]["containers"][0]["volumeMounts"] = {
      {{"name", "data"}, {"mountPath", "/data"}}};
  sts["spec"]["volumeClaimTemplates"] = json::parse(
      R"([{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}])");
  json stored = api.Create("/apis/apps/v1/namespaces/default/statefulsets", sts);
  CHECK(stored["spec"]["podManagementPolicy"] == "OrderedReady");
  CHECK(stored["spec"]["updateStrategy"] ==
        json::parse(R"({"type":"RollingUpdate","rollingUpdate":{"partition":0}})"));
  CHECK(stored["spec"]["persistentVolumeClaimRetentionPolicy"] ==
        json::parse(R"({"whenDeleted":"Retain","whenScaled":"Retain"})"));
  const json claim = stored["spec"]["volumeClaimTemplates"][0];
  CHECK(claim["apiVersion"] == "v1");
  CHECK(claim["kind"] == "PersistentVolumeClaim");
  CHECK(claim["spec"]["volumeMode"] == "Filesystem");
  CHECK(claim["status"] == json::parse(R"({"phase":"Pending"})"));
  CHECK(stored["status"] == json::parse(R"({"availableReplicas":0,"replicas":0})"));

  json ds = api.Create("/apis/apps/v1/namespaces/default/daemonsets", Selected("ds", "ds"));
  CHECK(
      ds["spec"]["updateStrategy"] ==
      json::parse(R"({"type":"RollingUpdate","rollingUpdate":{"maxSurge":0,"maxUnavailable":1}})"));
  CHECK(ds["spec"]["revisionHistoryLimit"] == 10);
  CHECK(ds["status"]["numberReady"] == 0);
}

TEST_CASE("jobs: generated selector and labels, restart policy, immutable template", "[builtin]") {
  testing::Chain api;
  json job = {{"metadata", {{"name", "pi"}}}, {"spec", {{"template", Template("pi", "Never")}}}};
  json stored = api.Create(kJobs, job);
  const std::string uid = stored["metadata"]["uid"];
  const json& spec = stored["spec"];
  CHECK(spec["completions"] == 1);
  CHECK(spec["parallelism"] == 1);
  CHECK(spec["backoffLimit"] == 6);
  CHECK(spec["completionMode"] == "NonIndexed");
  CHECK(spec["suspend"] == false);
  CHECK(spec["podReplacementPolicy"] == "TerminatingOrFailed");
  CHECK(spec["selector"] == json{{"matchLabels", {{"batch.kubernetes.io/controller-uid", uid}}}});
  const json labels = spec["template"]["metadata"]["labels"];
  CHECK(labels["batch.kubernetes.io/job-name"] == "pi");
  CHECK(labels["controller-uid"] == uid);
  CHECK(labels["job-name"] == "pi");
  CHECK(labels["app"] == "pi");
  // The job's labels default to the template's as the client sent it.
  CHECK(stored["metadata"]["labels"] == json{{"app", "pi"}});

  // Fields of later releases: per-index backoff (backoffLimit then defaults to the most).
  json indexed = {{"metadata", {{"name", "indexed"}}},
                  {"spec",
                   {{"completionMode", "Indexed"},
                    {"completions", 3},
                    {"backoffLimitPerIndex", 1},
                    {"managedBy", "kueue.x-k8s.io/multikueue"},
                    {"template", Template("i", "Never")}}}};
  json stored_indexed = api.Create(kJobs, indexed);
  CHECK(stored_indexed["spec"]["backoffLimitPerIndex"] == 1);
  CHECK(stored_indexed["spec"]["backoffLimit"] == 2147483647);
  CHECK(stored_indexed["spec"]["managedBy"] == "kueue.x-k8s.io/multikueue");

  json always = {{"metadata", {{"name", "always"}}}, {"spec", {{"template", Template("a")}}}};
  auto r = api.Do("POST", kJobs, always.dump());
  REQUIRE(r.status == 422);
  CHECK(r.Json()["message"] ==
        "Job.batch \"always\" is invalid: spec.template.spec.restartPolicy: Unsupported value: "
        "\"Always\": supported values: \"OnFailure\", \"Never\"");

  auto changed = api.Do("PATCH", std::string(kJobs) + "/pi",
                        R"({"spec":{"template":{"spec":{"activeDeadlineSeconds":5}}}})",
                        {"Content-Type: application/merge-patch+json"});
  REQUIRE(changed.status == 422);
  CHECK(changed.Json()["details"]["causes"][0]["field"] == "spec.template");
}

TEST_CASE("cronjobs: defaults, and the table", "[builtin]") {
  testing::Chain api;
  json cj = {{"metadata", {{"name", "hello"}}},
             {"spec",
              {{"schedule", "*/5 * * * *"},
               {"jobTemplate", {{"spec", {{"template", Template("h", "OnFailure")}}}}}}}};
  json stored = api.Create("/apis/batch/v1/namespaces/default/cronjobs", cj);
  const json& spec = stored["spec"];
  CHECK(spec["concurrencyPolicy"] == "Allow");
  CHECK(spec["suspend"] == false);
  CHECK(spec["successfulJobsHistoryLimit"] == 3);
  CHECK(spec["failedJobsHistoryLimit"] == 1);
  CHECK(spec["jobTemplate"]["metadata"].contains("creationTimestamp"));
  CHECK(!spec["jobTemplate"]["spec"].contains("backoffLimit"));  // a template is not a Job
  CHECK(spec["jobTemplate"]["spec"]["template"]["spec"]["dnsPolicy"] == "ClusterFirst");
  auto table = api.Do("GET", "/apis/batch/v1/namespaces/default/cronjobs", "",
                      {"Accept: application/json;as=Table;v=v1;g=meta.k8s.io"});
  const json cells = table.Json()["rows"][0]["cells"];
  CHECK(cells[1] == "*/5 * * * *");
  CHECK(cells[2] == "<none>");
  CHECK(cells[3] == "False");
  CHECK(cells[4] == 0);
  CHECK(cells[5] == "<none>");
}

TEST_CASE("scale: an autoscaling/v1 Scale of the replicated kinds", "[builtin]") {
  testing::Chain api;
  api.Create(kDeployments, Selected("web", "web"));
  const std::string scale = std::string(kDeployments) + "/web/scale";
  auto got = api.Do("GET", scale);
  REQUIRE(got.status == 200);
  json view = got.Json();
  CHECK(view["apiVersion"] == "autoscaling/v1");
  CHECK(view["kind"] == "Scale");
  CHECK(view["spec"] == json{{"replicas", 1}});
  CHECK(view["status"] == json::parse(R"({"replicas":0,"selector":"app=web"})"));

  auto patched = api.Do("PATCH", scale, R"({"spec":{"replicas":4}})",
                        {"Content-Type: application/merge-patch+json"});
  REQUIRE(patched.status == 200);
  CHECK(patched.Json()["spec"]["replicas"] == 4);
  json d = api.Do("GET", std::string(kDeployments) + "/web").Json();
  CHECK(d["spec"]["replicas"] == 4);
  CHECK(d["metadata"]["generation"] == 2);

  // PUT with a stale resourceVersion is a conflict; a fresh one goes through.
  view["spec"]["replicas"] = 2;
  auto stale = api.Do("PUT", scale, view.dump());
  REQUIRE(stale.status == 409);
  view["metadata"]["resourceVersion"] = d["metadata"]["resourceVersion"];
  auto put = api.Do("PUT", scale, view.dump());
  REQUIRE(put.status == 200);
  CHECK(put.Json()["spec"]["replicas"] == 2);

  view["spec"]["replicas"] = -1;
  view["metadata"].erase("resourceVersion");
  auto negative = api.Do("PUT", scale, view.dump());
  REQUIRE(negative.status == 422);
  CHECK(negative.Json()["message"] ==
        "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater "
        "than or equal to 0");
  CHECK(api.Do("GET", std::string(kDeployments) + "/missing/scale").status == 404);
  // Replica sets, stateful sets and replication controllers have one too.
  api.Create("/apis/apps/v1/namespaces/default/replicasets", Selected("rs", "rs"));
  CHECK(api.Do("GET", "/apis/apps/v1/namespaces/default/replicasets/rs/scale").status == 200);
  CHECK(api.Do("GET", "/apis/apps/v1/namespaces/default/daemonsets/ds/scale").status == 404);
}
