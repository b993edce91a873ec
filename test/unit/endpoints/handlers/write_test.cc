// POST, PUT, PATCH and DELETE through the core/v1 handler, as a client sees them.
#include <catch2/catch.hpp>

#include "test/unit/endpoints/handlers/fixture.h"
#include "test/unit/support/protobuf_body.h"

using nlohmann::json;
using testing::CoreAPI;

namespace {
constexpr char kCMs[] = "/api/v1/namespaces/default/configmaps";
const std::string kCM1 = std::string(kCMs) + "/cm1";
}  // namespace

TEST_CASE("create: 201 with the stored object and its generated metadata", "[handlers]") {
  CoreAPI api;
  auto r = api.Do(
      "POST", kCMs,
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1"},"data":{"a":"b"}})");
  REQUIRE(r.status == 201);
  const json cm = r.Json();
  CHECK(cm["metadata"]["namespace"] == "default");
  CHECK(cm["metadata"]["uid"].get<std::string>().size() == 36);
  CHECK(!cm["metadata"]["resourceVersion"].get<std::string>().empty());
  CHECK(cm["metadata"]["creationTimestamp"].get<std::string>().ends_with("Z"));
  CHECK(cm["data"] == json{{"a", "b"}});
  CHECK(r.headers.Get("Content-Type") == "application/json");
}

TEST_CASE("create: the upstream errors", "[handlers]") {
  CoreAPI api;
  api.CreateConfigMap("cm1");
  auto again = api.Do("POST", kCMs, R"({"metadata":{"name":"cm1"}})");
  CHECK(again.status == 409);
  CHECK(again.Json()["reason"] == "AlreadyExists");
  CHECK(again.Json()["message"] == "configmaps \"cm1\" already exists");

  auto bad_name = api.Do("POST", kCMs, R"({"metadata":{"name":"Bad_Name"}})");
  REQUIRE(bad_name.status == 422);
  const json status = bad_name.Json();
  CHECK(status["reason"] == "Invalid");
  CHECK(status["details"]["kind"] == "ConfigMap");
  CHECK(status["details"]["name"] == "Bad_Name");
  CHECK(status["details"]["causes"][0]["field"] == "metadata.name");
  CHECK(status["message"].get<std::string>().starts_with(
      "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase "
      "RFC 1123 subdomain"));

  auto malformed = api.Do("POST", kCMs, R"({"metadata":)");
  CHECK(malformed.status == 400);
  CHECK(malformed.Json()["reason"] == "BadRequest");

  auto no_ns = api.Do("POST", "/api/v1/namespaces/nope/configmaps", R"({"metadata":{"name":"x"}})");
  CHECK(no_ns.status == 404);
  CHECK(no_ns.Json()["message"] == "namespaces \"nope\" not found");

  auto wrong_kind = api.Do("POST", kCMs, R"({"kind":"Secret","metadata":{"name":"x"}})");
  CHECK(wrong_kind.status == 400);

  auto wrong_type = api.Do("POST", kCMs, R"({"metadata":{"name":"x"},"data":{"a":1}})");
  CHECK(wrong_type.status == 400);
  CHECK(wrong_type.Json()["message"].get<std::string>().starts_with(
      "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal "
      "number"));

  auto text = api.Do("POST", kCMs, "k8s", {"Content-Type: text/plain"});
  CHECK(text.status == 415);
  CHECK(text.Json()["reason"] == "UnsupportedMediaType");
  CHECK(text.Json()["message"] ==
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/yaml, application/vnd.kubernetes.protobuf");
}

TEST_CASE("create: protobuf bodies as kubectl's generators send them", "[handlers]") {
  using namespace testing::protobuf_body;
  CoreAPI api;
  const std::vector<std::string> protobuf = {"Content-Type: application/vnd.kubernetes.protobuf"};
  // kubectl create configmap pb --from-literal=a=b
  auto created = api.Do("POST", kCMs,
                        Body("v1", "ConfigMap", Str(1, Meta("pb")) + Entry(2, "a", "b")), protobuf);
  REQUIRE(created.status == 201);
  CHECK(created.Json()["data"] == json{{"a", "b"}});
  CHECK(created.Json()["metadata"]["namespace"] == "default");

  // A kind of the wrong resource is refused as a JSON body of that kind would be.
  auto secret = api.Do("POST", kCMs, Body("v1", "Secret", Str(1, Meta("s"))), protobuf);
  CHECK(secret.status == 400);

  // A kind without a message is not registered in the protobuf scheme: 400.
  auto unknown =
      api.Do("POST", kCMs, Body("example.com/v1", "Widget", Str(1, Meta("p"))), protobuf);
  CHECK(unknown.status == 400);
  CHECK(unknown.Json()["message"] ==
        "no kind \"Widget\" is registered for version \"example.com/v1\" in scheme "
        "\"pkg/api/legacyscheme/scheme.go:30\"");

  for (const std::string& broken : {std::string("k8s"), std::string("nope") + Str(1, ""),
                                    Body("v1", "ConfigMap", "\x0a\xff")}) {
    auto bad = api.Do("POST", kCMs, broken, protobuf);
    CHECK(bad.status == 400);
    CHECK(bad.Json()["reason"] == "BadRequest");
  }
}

TEST_CASE("create: YAML bodies, generateName, dry run", "[handlers]") {
  CoreAPI api;
  auto yaml = api.Do("POST", kCMs, "metadata:\n  name: y1\ndata:\n  a: b\n",
                     {"Content-Type: application/yaml"});
  CHECK(yaml.status == 201);
  CHECK(yaml.Json()["data"]["a"] == "b");

  auto generated = api.Do("POST", kCMs, R"({"metadata":{"generateName":"gen-"}})");
  REQUIRE(generated.status == 201);
  const std::string name = generated.Json()["metadata"]["name"];
  CHECK(name.size() == 9);
  CHECK(name.starts_with("gen-"));

  auto dry = api.Do("POST", std::string(kCMs) + "?dryRun=All", R"({"metadata":{"name":"dry"}})");
  CHECK(dry.status == 201);
  CHECK(api.Do("GET", std::string(kCMs) + "/dry").status == 404);
  auto bad_dry = api.Do("POST", std::string(kCMs) + "?dryRun=Some", R"({"metadata":{"name":"d"}})");
  CHECK(bad_dry.status == 422);
  CHECK(bad_dry.Json()["message"] ==
        "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"Some\"}: "
        "supported values: \"All\"");
}

TEST_CASE("fieldValidation: Strict refuses, Warn warns, Ignore drops unknown fields",
          "[handlers]") {
  CoreAPI api;
  const std::string body = R"({"metadata":{"name":"f1"},"data":{"a":"b"},"bogus":1})";
  auto strict = api.Do("POST", std::string(kCMs) + "?fieldValidation=Strict", body);
  CHECK(strict.status == 400);
  CHECK(strict.Json()["message"] ==
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: "
        "unknown field \"bogus\"");

  auto warn = api.Do("POST", std::string(kCMs) + "?fieldValidation=Warn", body);
  CHECK(warn.status == 201);
  CHECK(warn.headers.Get("Warning") == "299 - \"unknown field \\\"bogus\\\"\"");
  CHECK(!warn.Json().contains("bogus"));

  auto dup = api.Do("POST", std::string(kCMs) + "?fieldValidation=Strict",
                    R"({"metadata":{"name":"f2","name":"f2"}})");
  CHECK(dup.status == 400);
  CHECK(dup.Json()["message"] ==
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: "
        "duplicate field \"metadata.name\"");

  auto ignore = api.Do("POST", std::string(kCMs) + "?fieldValidation=Ignore",
                       R"({"metadata":{"name":"f3"},"bogus":1})");
  CHECK(ignore.status == 201);
  CHECK(!ignore.headers.Get("Warning"));
}

TEST_CASE("update: optimistic concurrency and no-op updates", "[handlers]") {
  CoreAPI api;
  json cm = api.CreateConfigMap("cm1");
  const std::string rv = cm["metadata"]["resourceVersion"];

  auto same = api.Do("PUT", kCM1, cm.dump());
  REQUIRE(same.status == 200);
  CHECK(same.Json()["metadata"]["resourceVersion"] == rv);

  cm["data"]["k"] = "changed";
  auto changed = api.Do("PUT", kCM1, cm.dump());
  REQUIRE(changed.status == 200);
  CHECK(changed.Json()["metadata"]["resourceVersion"] != rv);

  auto stale = api.Do("PUT", kCM1, cm.dump());  // still carries the old resourceVersion
  CHECK(stale.status == 409);
  CHECK(stale.Json()["reason"] == "Conflict");
  CHECK(stale.Json()["message"] ==
        "Operation cannot be fulfilled on configmaps \"cm1\": the object has been modified; "
        "please apply your changes to the latest version and try again");

  cm["metadata"].erase("resourceVersion");
  auto unconditional = api.Do("PUT", kCM1, cm.dump());
  CHECK(unconditional.status == 200);

  // A changed creationTimestamp is ignored; an offset time is read as the same instant.
  json moved = unconditional.Json();
  moved["metadata"]["creationTimestamp"] = "2001-02-03T05:05:06+01:00";
  moved["data"]["k"] = "again";
  auto kept = api.Do("PUT", kCM1, moved.dump());
  REQUIRE(kept.status == 200);
  CHECK(kept.Json()["metadata"]["creationTimestamp"] == cm["metadata"]["creationTimestamp"]);

  auto other_name = api.Do("PUT", kCM1, R"({"metadata":{"name":"cm2"}})");
  CHECK(other_name.status == 400);
  auto missing = api.Do("PUT", std::string(kCMs) + "/nope", R"({"metadata":{"name":"nope"}})");
  CHECK(missing.status == 404);
}

TEST_CASE("patch: the three patch types, no-op and errors", "[handlers]") {
  CoreAPI api;
  const json cm = api.CreateConfigMap("cm1", {{"a", "1"}, {"b", "2"}});
  const std::string rv = cm["metadata"]["resourceVersion"];

  auto merge = api.Do("PATCH", kCM1, R"({"data":{"a":null,"c":"3"}})",
                      {"Content-Type: application/merge-patch+json"});
  REQUIRE(merge.status == 200);
  CHECK(merge.Json()["data"] == json{{"b", "2"}, {"c", "3"}});

  auto jsonpatch = api.Do("PATCH", kCM1, R"([{"op":"replace","path":"/data/b","value":"x"}])",
                          {"Content-Type: application/json-patch+json"});
  REQUIRE(jsonpatch.status == 200);
  CHECK(jsonpatch.Json()["data"]["b"] == "x");

  auto smp = api.Do("PATCH", kCM1, R"({"metadata":{"labels":{"l":"v"}},"data":{"c":null}})",
                    {"Content-Type: application/strategic-merge-patch+json"});
  REQUIRE(smp.status == 200);
  CHECK(smp.Json()["metadata"]["labels"]["l"] == "v");
  CHECK(smp.Json()["data"] == json{{"b", "x"}});

  const std::string before = smp.Json()["metadata"]["resourceVersion"];
  auto noop = api.Do("PATCH", kCM1, R"({"data":{"b":"x"}})",
                     {"Content-Type: application/merge-patch+json"});
  CHECK(noop.Json()["metadata"]["resourceVersion"] == before);
  CHECK(before != rv);

  auto failed_test = api.Do("PATCH", kCM1, R"([{"op":"test","path":"/data/b","value":"y"}])",
                            {"Content-Type: application/json-patch+json"});
  CHECK(failed_test.status == 422);

  // An apply names its field manager.
  auto apply = api.Do("PATCH", kCM1, "{}", {"Content-Type: application/apply-patch+yaml"});
  CHECK(apply.status == 422);
  CHECK(apply.Json()["message"] ==
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required "
        "for apply patch");
  auto unknown = api.Do("PATCH", kCM1, "{}", {"Content-Type: application/x-unknown"});
  CHECK(unknown.status == 415);
  CHECK(unknown.Json()["message"] ==
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, "
        "application/strategic-merge-patch+json, application/apply-patch+yaml");
  auto missing = api.Do("PATCH", std::string(kCMs) + "/nope", "{}",
                        {"Content-Type: application/merge-patch+json"});
  CHECK(missing.status == 404);
  auto stale = api.Do("PATCH", kCM1, R"({"metadata":{"resourceVersion":"1"}})",
                      {"Content-Type: application/merge-patch+json"});
  CHECK(stale.status == 409);
}

TEST_CASE("delete: Status for immediate deletion, the object while finalizers remain",
          "[handlers]") {
  CoreAPI api;
  const json cm = api.CreateConfigMap("cm1");
  auto deleted = api.Do("DELETE", kCM1, R"({"propagationPolicy":"Background"})");
  REQUIRE(deleted.status == 200);
  CHECK(deleted.Json()["kind"] == "Status");
  CHECK(deleted.Json()["status"] == "Success");
  CHECK(deleted.Json()["details"]["name"] == "cm1");
  CHECK(deleted.Json()["details"]["uid"] == cm["metadata"]["uid"]);
  CHECK(api.Do("GET", kCM1).status == 404);
  CHECK(api.Do("DELETE", kCM1).status == 404);

  auto created =
      api.Do("POST", kCMs, R"({"metadata":{"name":"fin","finalizers":["example.com/x"]}})");
  REQUIRE(created.status == 201);
  const std::string fin = std::string(kCMs) + "/fin";
  auto marked = api.Do("DELETE", fin);
  REQUIRE(marked.status == 200);
  CHECK(marked.Json()["kind"] == "ConfigMap");
  CHECK(marked.Json()["metadata"].contains("deletionTimestamp"));
  CHECK(api.Do("GET", fin).status == 200);
  // Removing the last finalizer deletes it.
  auto emptied = api.Do("PATCH", fin, R"({"metadata":{"finalizers":null}})",
                        {"Content-Type: application/merge-patch+json"});
  CHECK(emptied.status == 200);
  CHECK(api.Do("GET", fin).status == 404);

  api.CreateConfigMap("pre");
  auto wrong_uid =
      api.Do("DELETE", std::string(kCMs) + "/pre", R"({"preconditions":{"uid":"nope"}})");
  CHECK(wrong_uid.status == 409);
  auto dry = api.Do("DELETE", std::string(kCMs) + "/pre", R"({"dryRun":["All"]})");
  CHECK(dry.status == 200);
  CHECK(api.Do("GET", std::string(kCMs) + "/pre").status == 200);
}

TEST_CASE("deletecollection: only what the selector picks", "[handlers]") {
  CoreAPI api;
  api.CreateConfigMap("a", {{"k", "v"}}, {{"app", "x"}});
  api.CreateConfigMap("b", {{"k", "v"}}, {{"app", "y"}});
  auto r = api.Do("DELETE", std::string(kCMs) + "?labelSelector=app%3Dx");
  REQUIRE(r.status == 200);
  CHECK(r.Json()["kind"] == "ConfigMapList");
  CHECK(r.Json()["items"].size() == 1);
  CHECK(api.Do("GET", std::string(kCMs) + "/a").status == 404);
  CHECK(api.Do("GET", std::string(kCMs) + "/b").status == 200);
}

TEST_CASE("namespaces: Terminating on delete, immortal ones, lifecycle admission", "[handlers]") {
  CoreAPI api;
  REQUIRE(api.Do("POST", "/api/v1/namespaces", R"({"metadata":{"name":"t1"}})").status == 201);
  auto ns = api.Do("GET", "/api/v1/namespaces/t1").Json();
  CHECK(ns["status"]["phase"] == "Active");
  CHECK(ns["spec"]["finalizers"] == json::array({"kubernetes"}));
  CHECK(ns["metadata"]["labels"]["kubernetes.io/metadata.name"] == "t1");

  auto deleted = api.Do("DELETE", "/api/v1/namespaces/t1");
  REQUIRE(deleted.status == 200);
  CHECK(deleted.Json()["status"]["phase"] == "Terminating");
  auto again = api.Do("DELETE", "/api/v1/namespaces/t1");
  CHECK(again.status == 409);

  auto inside = api.Do("POST", "/api/v1/namespaces/t1/configmaps", R"({"metadata":{"name":"x"}})");
  CHECK(inside.status == 403);
  CHECK(inside.Json()["message"] ==
        "configmaps \"x\" is forbidden: unable to create new content in namespace t1 because it "
        "is being terminated");
  CHECK(inside.Json()["details"]["causes"][0]["reason"] == "NamespaceTerminating");

  auto immortal = api.Do("DELETE", "/api/v1/namespaces/default");
  CHECK(immortal.status == 403);
  CHECK(immortal.Json()["message"] ==
        "namespaces \"default\" is forbidden: this namespace may not be deleted");

  // Finalizing it (what the namespace controller does when it is empty) removes it.
  json finalize = api.Do("GET", "/api/v1/namespaces/t1").Json();
  finalize["spec"]["finalizers"] = json::array();
  auto finalized = api.Do("PUT", "/api/v1/namespaces/t1/finalize", finalize.dump());
  CHECK(finalized.status == 200);
  CHECK(api.Do("GET", "/api/v1/namespaces/t1").status == 404);

  CHECK(api.Do("DELETE", "/api/v1/namespaces").status == 405);
}

TEST_CASE("secrets: stringData, base64, type rules", "[handlers]") {
  CoreAPI api;
  const std::string secrets = "/api/v1/namespaces/default/secrets";
  auto created =
      api.Do("POST", secrets,
             R"({"metadata":{"name":"s1"},"stringData":{"user":"admin"},"data":{"pw":"aGk="}})");
  REQUIRE(created.status == 201);
  const json s = created.Json();
  CHECK(s["type"] == "Opaque");
  CHECK(s["data"] == json{{"pw", "aGk="}, {"user", "YWRtaW4="}});
  CHECK(!s.contains("stringData"));

  auto bad64 = api.Do("POST", secrets, R"({"metadata":{"name":"s2"},"data":{"pw":"hello!"}})");
  CHECK(bad64.status == 400);
  CHECK(bad64.Json()["message"] ==
        "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input byte "
        "5");

  json changed = s;
  changed["type"] = "kubernetes.io/tls";
  auto immutable_type = api.Do("PUT", secrets + "/s1", changed.dump());
  CHECK(immutable_type.status == 422);

  auto tls = api.Do("POST", secrets, R"({"metadata":{"name":"t"},"type":"kubernetes.io/tls"})");
  CHECK(tls.status == 422);
  CHECK(tls.Json()["details"]["causes"].size() == 2);
}

TEST_CASE("configmaps: immutable data", "[handlers]") {
  CoreAPI api;
  auto created =
      api.Do("POST", kCMs, R"({"metadata":{"name":"cm1"},"data":{"a":"b"},"immutable":true})");
  REQUIRE(created.status == 201);
  auto change = api.Do("PATCH", kCM1, R"({"data":{"a":"c"}})",
                       {"Content-Type: application/merge-patch+json"});
  CHECK(change.status == 422);
  CHECK(change.Json()["message"].get<std::string>().find(
            "field is immutable when `immutable` is set") != std::string::npos);
  auto labels = api.Do("PATCH", kCM1, R"({"metadata":{"labels":{"x":"y"}}})",
                       {"Content-Type: application/merge-patch+json"});
  CHECK(labels.status == 200);
}

TEST_CASE("events: PUT creates, deletion policies do not keep them", "[handlers]") {
  CoreAPI api;
  const std::string ev = "/api/v1/namespaces/default/events/e1";
  const std::string body =
      R"({"metadata":{"name":"e1"},"involvedObject":{"kind":"ConfigMap","name":"c","namespace":"default"},"reason":"R","message":"m"})";
  auto put = api.Do("PUT", ev, body);
  CHECK(put.status == 201);
  auto orphan = api.Do("DELETE", ev, R"({"propagationPolicy":"Orphan"})");
  CHECK(orphan.status == 200);
  CHECK(orphan.Json()["kind"] == "Status");
  CHECK(api.Do("GET", ev).status == 404);

  // A configmap is not created by PUT.
  CHECK(api.Do("PUT", kCM1, R"({"metadata":{"name":"cm1"}})").status == 404);
}

TEST_CASE("write options are named after the verb in their errors", "[handlers]") {
  CoreAPI api;
  api.CreateConfigMap("cm1");
  auto put = api.Do("PUT", kCM1 + "?dryRun=Yes", R"({"metadata":{"name":"cm1"}})");
  CHECK(put.status == 422);
  CHECK(put.Json()["details"]["kind"] == "UpdateOptions");
  auto patch =
      api.Do("PATCH", kCM1 + "?dryRun=Yes", "{}", {"Content-Type: application/merge-patch+json"});
  CHECK(patch.status == 422);
  CHECK(patch.Json()["details"]["kind"] == "PatchOptions");
  auto validation = api.Do("PATCH", kCM1 + "?fieldValidation=Sometimes", "{}",
                           {"Content-Type: application/merge-patch+json"});
  CHECK(validation.status == 400);
}

TEST_CASE("create: deeply nested bodies are refused cheaply", "[handlers]") {
  CoreAPI api;
  auto nested = [](int depth) {
    return R"({"metadata":{"name":"deep"},"data":)" + std::string(depth, '[') +
           std::string(depth, ']') + "}";
  };
  auto too_deep = api.Do("POST", kCMs, nested(200000));
  CHECK(too_deep.status == 400);
  CHECK(too_deep.Json()["message"] ==
        "couldn't get version/kind; json parse error: invalid character '[' exceeded max depth");
  // Within Go's limit: decoded, then refused for its type, in time linear in the depth.
  auto deep = api.Do("POST", kCMs, nested(9000));
  CHECK(deep.status == 400);
  CHECK(deep.Json()["message"].get<std::string>().find("cannot unmarshal array") !=
        std::string::npos);
  // Brackets inside strings do not count.
  auto quoted =
      api.Do("POST", kCMs,
             R"({"metadata":{"name":"q"},"data":{"k":")" + std::string(20000, '[') + R"("}})");
  CHECK(quoted.status == 201);

  std::string yaml = "metadata:\n  name: deepy\ndata: " + std::string(200000, '[') +
                     std::string(200000, ']') + "\n";
  auto deep_yaml = api.Do("POST", kCMs, yaml, {"Content-Type: application/yaml"});
  CHECK(deep_yaml.status == 400);
}

TEST_CASE("serviceaccounts: secret references keep their names, tables count them", "[handlers]") {
  using namespace testing::protobuf_body;
  CoreAPI api;
  const std::string sas = "/api/v1/namespaces/default/serviceaccounts";
  // kubectl create serviceaccount sa1: a protobuf body.
  auto created = api.Do("POST", sas, Body("v1", "ServiceAccount", Str(1, Meta("sa1", "default"))),
                        {"Content-Type: application/vnd.kubernetes.protobuf"});
  REQUIRE(created.status == 201);
  CHECK(!created.Json().contains("secrets"));

  auto with_refs = api.Do(
      "POST", sas,
      R"({"metadata":{"name":"sa2"},"secrets":[{"name":"s1","namespace":"x","uid":"u"}],"imagePullSecrets":[]})");
  REQUIRE(with_refs.status == 201);
  CHECK(with_refs.Json()["secrets"] == json::parse(R"([{"name":"s1"}])"));
  CHECK(!with_refs.Json().contains("imagePullSecrets"));

  auto table = api.Do("GET", sas, "", {"Accept: application/json;as=Table;v=v1;g=meta.k8s.io"});
  REQUIRE(table.status == 200);
  const json rows = table.Json()["rows"];
  REQUIRE(rows.size() == 2);
  CHECK(rows[1]["cells"][0] == "sa2");
  CHECK(rows[1]["cells"][1] == 1);
}
