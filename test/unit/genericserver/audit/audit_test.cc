#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "pkg/genericserver/audit/buffered_backend.h"
#include "pkg/genericserver/audit/context.h"
#include "pkg/genericserver/audit/event.h"
#include "pkg/genericserver/audit/log_backend.h"
#include "pkg/genericserver/audit/metrics.h"
#include "pkg/genericserver/audit/policy.h"

namespace {

endpoints::RequestInfo Info(std::string method, std::string target) {
  endpoints::RequestInfoResolver resolver;
  return *resolver.Resolve(
      genericserver::Request::FromTarget(std::move(method), std::move(target)));
}

authn::UserInfo User(std::string name, std::vector<std::string> groups = {}) {
  return {std::move(name), "", std::move(groups), {}};
}

audit::Policy Parse(const std::string& text) {
  auto policy = audit::ParsePolicy(text);
  INFO((policy ? std::string() : policy.error()));
  REQUIRE(policy);
  return *policy;
}

constexpr char kPolicy[] = R"(apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
omitManagedFields: true
rules:
- level: None
  users: [system:kube-proxy]
  verbs: [watch]
  resources:
  - group: ""
    resources: [endpoints, services]
- level: None
  userGroups: [system:nodes]
  nonResourceURLs: ["/healthz*", /version]
- level: RequestResponse
  omitStages: [ResponseStarted]
  omitManagedFields: false
  resources:
  - group: ""
    resources: [pods/log, "*/status"]
- level: Request
  namespaces: [kube-system]
  resources:
  - group: apps
    resources: [deployments/*]
  - group: ""
    resources: [configmaps]
    resourceNames: [controller-leader]
- level: Metadata
  resources:
  - group: ""
    resources: [secrets, configmaps]
- level: Metadata
  nonResourceURLs: ["*"]
)";

}  // namespace

TEST_CASE("the first matching rule decides the level, as upstream's checker") {
  const audit::Policy policy = Parse(kPolicy);
  const auto proxy = User("system:kube-proxy");
  const auto node = User("system:node:n1", {"system:nodes", "system:authenticated"});
  const auto jane = User("jane", {"system:authenticated"});
  auto level = [&](const authn::UserInfo* user, const char* method, const char* target) {
    return audit::Evaluate(policy, user, Info(method, target)).level;
  };
  using audit::Level;
  CHECK(level(&proxy, "GET", "/api/v1/services?watch=1") == Level::kNone);
  CHECK(level(&proxy, "GET", "/api/v1/services") == Level::kNone);  // "list": no rule but *
  CHECK(level(&jane, "GET", "/api/v1/namespaces/d/services?watch=1") == Level::kNone);
  CHECK(level(&node, "GET", "/healthz/etcd") == Level::kNone);
  CHECK(level(&node, "GET", "/version") == Level::kNone);
  CHECK(level(&jane, "GET", "/version") == Level::kMetadata);
  CHECK(level(nullptr, "GET", "/version") == Level::kMetadata);
  CHECK(level(&jane, "GET", "/api/v1/namespaces/d/pods/p/log") == Level::kRequestResponse);
  CHECK(level(&jane, "GET", "/api/v1/namespaces/d/pods/p") == Level::kNone);
  CHECK(level(&jane, "PUT", "/api/v1/namespaces/d/pods/p/status") == Level::kRequestResponse);
  // "*/status" is of the core group only.
  CHECK(level(&jane, "PUT", "/apis/apps/v1/namespaces/d/deployments/x/status") == Level::kNone);
  CHECK(level(&jane, "PUT", "/apis/apps/v1/namespaces/kube-system/deployments/x/scale") ==
        Level::kRequest);
  CHECK(level(&jane, "GET", "/apis/apps/v1/namespaces/kube-system/deployments/x") ==
        Level::kRequest);
  CHECK(level(&jane, "GET", "/apis/apps/v1/namespaces/default/deployments/x") == Level::kNone);
  CHECK(level(&jane, "PUT", "/api/v1/namespaces/kube-system/configmaps/controller-leader") ==
        Level::kRequest);
  CHECK(level(&jane, "PUT", "/api/v1/namespaces/kube-system/configmaps/other") == Level::kMetadata);
  CHECK(level(&jane, "GET", "/api/v1/secrets") == Level::kMetadata);

  auto status = audit::Evaluate(policy, &jane, Info("PUT", "/api/v1/namespaces/d/pods/p/status"));
  CHECK(status.Omits(audit::Stage::kRequestReceived));
  CHECK(status.Omits(audit::Stage::kResponseStarted));
  CHECK_FALSE(status.Omits(audit::Stage::kResponseComplete));
  CHECK_FALSE(status.omit_managed_fields);
  CHECK(audit::Evaluate(policy, &jane, Info("GET", "/api/v1/secrets")).omit_managed_fields);
}

TEST_CASE("invalid policies are refused with every problem named") {
  auto bad = audit::ParsePolicy(R"(apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [Sometime]
rules:
- level: Loud
- verbs: [get]
- level: Metadata
  nonResourceURLs: [healthz, "/a*b"]
  resources: [{group: ""}]
- level: None
  resources: [{group: "", resourceNames: [x]}]
)");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().find(R"(omitStages: Unsupported value: "Sometime")") != std::string::npos);
  CHECK(bad.error().find(R"(rules[0].level: Unsupported value: "Loud")") != std::string::npos);
  CHECK(bad.error().find("rules[1].level: Required value") != std::string::npos);
  CHECK(bad.error().find("non-resource URL rules must begin with a '/' character") !=
        std::string::npos);
  CHECK(bad.error().find("wildcards '*' must be the final character") != std::string::npos);
  CHECK(bad.error().find("rules cannot apply to both regular resources and non-resource URLs") !=
        std::string::npos);
  CHECK(bad.error().find("using resource names requires at least one resource") !=
        std::string::npos);
  CHECK_FALSE(audit::ParsePolicy("apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: []\n"));
  auto empty = audit::ParsePolicy("apiVersion: audit.k8s.io/v1\nkind: Policy\n");
  REQUIRE_FALSE(empty);
  CHECK(empty.error() == "loaded illegal policy with 0 rules");
  CHECK_FALSE(audit::ParsePolicy("{not yaml: ["));
}

TEST_CASE("events encode in upstream's field order, empty fields left out") {
  audit::Event e;
  e.level = audit::Level::kMetadata;
  e.audit_id = "id-1";
  e.stage = audit::Stage::kResponseComplete;
  e.request_uri = "/api/v1/namespaces/d/pods?limit=1";
  e.verb = "list";
  e.user = User("jane", {"dev"});
  e.source_ips = {"10.0.0.1", "127.0.0.1"};
  e.object_ref.emplace().resource = "pods";
  e.object_ref->namespace_ = "d";
  e.object_ref->api_version = "v1";
  e.response_status.emplace().code = 200;
  e.request_received = util::MicroTime(std::chrono::microseconds(1'700'000'000'123'456));
  e.stage_timestamp = e.request_received + std::chrono::microseconds(5);
  e.annotations["authorization.k8s.io/decision"] = "allow";
  CHECK(audit::EncodeJSON(e) ==
        R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"id-1",)"
        R"("stage":"ResponseComplete","requestURI":"/api/v1/namespaces/d/pods?limit=1",)"
        R"("verb":"list","user":{"username":"jane","groups":["dev"]},)"
        R"("sourceIPs":["10.0.0.1","127.0.0.1"],)"
        R"("objectRef":{"resource":"pods","namespace":"d","apiVersion":"v1"},)"
        R"("responseStatus":{"metadata":{},"code":200},)"
        R"("requestReceivedTimestamp":"2023-11-14T22:13:20.123456Z",)"
        R"("stageTimestamp":"2023-11-14T22:13:20.123461Z",)"
        R"("annotations":{"authorization.k8s.io/decision":"allow"}})");
  CHECK(audit::EncodeLegacy(e) ==
        R"(2023-11-14T22:13:20.123456Z AUDIT: id="id-1" stage="ResponseComplete" ip="10.0.0.1" )"
        R"(method="list" user="jane" groups="\"dev\"" as="<self>" asgroups="<lookup>" )"
        R"(user-agent="" namespace="d" uri="/api/v1/namespaces/d/pods?limit=1" response="200" )"
        R"(authorization.k8s.io/decision="allow")");
  auto list = nlohmann::json::parse(audit::EncodeEventList({std::make_shared<audit::Event>(e)}));
  CHECK(list["kind"] == "EventList");
  CHECK(list["items"][0]["auditID"] == "id-1");
}

TEST_CASE("the context records objects by level and drops managedFields when asked") {
  audit::RequestAuditConfig metadata{audit::Level::kMetadata, {}, false};
  audit::Context at_metadata(metadata, audit::Event{});
  const auto object = nlohmann::json::parse(
      R"({"kind":"ConfigMap","metadata":{"name":"c","namespace":"d","uid":"u",)"
      R"("resourceVersion":"7","managedFields":[{"manager":"m"}]}})");
  at_metadata.LogRequestObject(object);
  REQUIRE(at_metadata.event().object_ref);
  CHECK(at_metadata.event().object_ref->name == "c");
  CHECK(at_metadata.event().object_ref->uid == "u");
  CHECK(at_metadata.event().object_ref->resource_version == "7");
  CHECK(at_metadata.event().request_object.empty());
  at_metadata.AddAnnotation("k", "first");
  at_metadata.AddAnnotation("k", "second");
  CHECK(at_metadata.event().annotations.at("k") == "first");

  audit::RequestAuditConfig request{audit::Level::kRequest, {}, true};
  audit::Context at_request(request, audit::Event{});
  at_request.LogRequestObject(object);
  auto recorded = nlohmann::json::parse(at_request.event().request_object);
  CHECK(recorded["metadata"]["name"] == "c");
  CHECK_FALSE(recorded["metadata"].contains("managedFields"));
  auto list = nlohmann::json::parse(R"({"kind":"List","items":[)" + object.dump() + "]}");
  CHECK(at_request.Recorded(list).find("managedFields") == std::string::npos);
}

TEST_CASE("a full buffer drops events and counts them instead of blocking") {
  std::mutex gate;
  std::unique_lock held(gate);
  std::atomic<bool> taken{false};
  std::atomic<int> written{0};
  const uint64_t errors_before = audit::ErrorCount("log");
  {
    audit::BufferOptions options;
    options.buffer_size = 2;
    options.max_batch_size = 1;
    audit::BufferedBackend backend("log", options,
                                   [&](std::vector<audit::EventPtr>& batch, const auto&) {
                                     taken = true;
                                     std::lock_guard wait(gate);
                                     written += static_cast<int>(batch.size());
                                   });
    auto event = std::make_shared<audit::Event>();
    backend.ProcessEvent(event);  // the writer takes it and waits on the gate
    while (!taken) std::this_thread::yield();
    for (int i = 0; i < 12; ++i) backend.ProcessEvent(event);  // two fit, ten are dropped
    CHECK(audit::ErrorCount("log") == errors_before + 10);
    held.unlock();
    backend.Shutdown();  // writes what the buffer holds
  }
  CHECK(written == 3);
}

TEST_CASE("the log rotates by size and removes backups older than max age by their names") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("kas-audit-log-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path old_backup = dir / "audit-2020-01-02T03-04-05.000.log";
  const fs::path unrelated = dir / "audit-notastamp-at-all-xxxxxx.log";
  std::ofstream(old_backup) << "{}\n";
  std::ofstream(unrelated) << "{}\n";
  audit::LogOptions options;
  options.path = (dir / "audit.log").string();
  options.max_size_mb = 1;
  options.max_age_days = 1;
  auto big = std::make_shared<audit::Event>();
  big->request_object = "\"" + std::string(700 << 10, 'x') + "\"";
  for (int round = 0; round < 2; ++round) {  // the second write passes 1 MB: a rotation
    auto backend = audit::NewLogBackend(options);
    REQUIRE(backend);
    (*backend)->ProcessEvent(big);
    (*backend)->Shutdown();
  }
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::ranges::sort(names);
  REQUIRE(names.size() == 3);
  CHECK(names[0].size() == std::string("audit-2020-01-02T03-04-05.000.log").size());
  CHECK(names[0] != old_backup.filename().string());  // the old one is gone, the new kept
  CHECK(names[1] == "audit-notastamp-at-all-xxxxxx.log");
  CHECK(names[2] == "audit.log");
  CHECK(fs::file_size(dir / "audit.log") > (700 << 10));
  fs::remove_all(dir);
}
