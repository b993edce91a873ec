#include <catch2/catch.hpp>

#include <cstdint>
#include <iterator>
#include <random>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/protobuf/envelope.h"
#include "pkg/genericserver/apimachinery/protobuf/messages.h"
#include "test/unit/support/protobuf_body.h"

using apimachinery::protobuf::DecodeEnvelope;
using apimachinery::protobuf::EncodeObject;
using apimachinery::protobuf::EncodeWatchEvent;
using apimachinery::protobuf::KnowsKind;
using apimachinery::protobuf::ToJSON;
using nlohmann::json;
using namespace testing::protobuf_body;

namespace {

// The body decoded to JSON; fails the test on an error.
json Decode(const std::string& body) {
  auto envelope = DecodeEnvelope(body);
  REQUIRE(envelope.has_value());
  auto object = ToJSON(*envelope);
  if (!object) FAIL(object.error());
  return *object;
}

// The error message for a body; fails the test when it decodes.
std::string Error(const std::string& body) {
  auto envelope = DecodeEnvelope(body);
  if (!envelope) return envelope.error();
  auto object = ToJSON(*envelope);
  REQUIRE_FALSE(object.has_value());
  return object.error();
}

std::string FromHex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return out;
}

}  // namespace

TEST_CASE("kubectl auth can-i create pods, byte for byte", "[protobuf]") {
  // The body kubectl 1.32 sends (KUBECTL.md section 10).
  const std::string body = std::string("k8s\0", 4) +
                           FromHex(
                               "0a32"
                               "0a17") +
                           "authorization.k8s.io/v1" + FromHex("1217") + "SelfSubjectAccessReview" +
                           FromHex(
                               "123f"
                               "0a10"
                               "0a00"
                               "1200"
                               "1a00"
                               "2200"
                               "2a00"
                               "3200"
                               "3800"
                               "4200") +
                           FromHex(
                               "1221"
                               "0a1f"
                               "0a07") +
                           "default" + FromHex("1206") + "create" +
                           FromHex(
                               "1a00"
                               "2200"
                               "2a04") +
                           "pods" +
                           FromHex(
                               "3200"
                               "3a00") +
                           FromHex(
                               "1a08"
                               "0800"
                               "1200"
                               "1a00"
                               "2000") +
                           FromHex(
                               "1a00"
                               "2200");
  auto envelope = DecodeEnvelope(body);
  REQUIRE(envelope.has_value());
  CHECK(envelope->type.api_version == "authorization.k8s.io/v1");
  CHECK(envelope->type.kind == "SelfSubjectAccessReview");
  CHECK(envelope->raw.size() == 0x3f);
  CHECK(envelope->content_encoding.empty());
  CHECK(envelope->content_type.empty());
  REQUIRE(KnowsKind("authorization.k8s.io/v1", "SelfSubjectAccessReview"));
  auto object = ToJSON(*envelope);
  REQUIRE(object.has_value());
  CHECK(*object == json::parse(R"({
    "apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",
    "metadata":{"creationTimestamp":null},
    "spec":{"resourceAttributes":{"namespace":"default","verb":"create","resource":"pods"}},
    "status":{"allowed":false}})"));
  // And encoding that object gives kubectl's bytes back: every non-pointer field written,
  // zero or not, in field order.
  CHECK(EncodeObject(*object) == body);
}

TEST_CASE("generator bodies of kubectl create", "[protobuf]") {
  SECTION("create configmap foo --from-literal=a=b") {
    const std::string raw = Str(1, Meta("foo")) + Entry(2, "a", "b");
    CHECK(Decode(Body("v1", "ConfigMap", raw)) == json::parse(R"({
      "apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"foo","creationTimestamp":null},"data":{"a":"b"}})"));
  }
  SECTION("create secret generic s --from-literal=k=v") {
    const std::string raw = Str(1, Meta("s")) + Entry(2, "k", "v") + Str(3, "");
    CHECK(Decode(Body("v1", "Secret", raw)) == json::parse(R"({
      "apiVersion":"v1","kind":"Secret",
      "metadata":{"name":"s","creationTimestamp":null},"data":{"k":"dg=="}})"));
  }
  SECTION("create namespace x: spec and status are structs, so {} as in JSON") {
    const std::string raw = Str(1, Meta("x")) + Str(2, "") + Str(3, Str(1, ""));
    CHECK(Decode(Body("v1", "Namespace", raw)) == json::parse(R"({
      "apiVersion":"v1","kind":"Namespace",
      "metadata":{"name":"x","creationTimestamp":null},"spec":{},"status":{}})"));
  }
  SECTION("create serviceaccount sa") {
    CHECK(Decode(Body("v1", "ServiceAccount", Str(1, Meta("sa", "default")))) ==
          json::parse(R"({"apiVersion":"v1","kind":"ServiceAccount",
            "metadata":{"name":"sa","namespace":"default","creationTimestamp":null}})"));
  }
  SECTION("auth whoami") {
    const std::string raw = Str(1, Meta("")) + Str(2, Str(1, Str(1, "") + Str(2, "")));
    CHECK(Decode(Body("authentication.k8s.io/v1", "SelfSubjectReview", raw)) ==
          json::parse(R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview",
            "metadata":{"creationTimestamp":null},"status":{"userInfo":{}}})"));
  }
  SECTION("auth can-i --list: the status's slices have no omitempty") {
    const std::string raw =
        Str(1, Meta("")) + Str(2, Str(1, "default")) + Str(3, Int(3, 0) + Str(4, ""));
    CHECK(Decode(Body("authorization.k8s.io/v1", "SelfSubjectRulesReview", raw)) ==
          json::parse(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview",
            "metadata":{"creationTimestamp":null},"spec":{"namespace":"default"},
            "status":{"resourceRules":null,"nonResourceRules":null,"incomplete":false}})"));
  }
  SECTION("create token: absent pointers without omitempty are null") {
    const std::string raw =
        Str(1, Meta("sa", "default")) + Str(2, Str(1, "api")) + Str(3, Str(1, "") + Str(2, ""));
    CHECK(Decode(Body("authentication.k8s.io/v1", "TokenRequest", raw)) ==
          json::parse(R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest",
            "metadata":{"name":"sa","namespace":"default","creationTimestamp":null},
            "spec":{"audiences":["api"],"boundObjectRef":null,"expirationSeconds":null},
            "status":{"token":"","expirationTimestamp":null}})"));
  }
}

TEST_CASE("ObjectMeta, every field", "[protobuf]") {
  const std::string fields_v1 = R"({"f:data":{"f:a":{}}})";
  const std::string owner =
      Str(1, "ReplicaSet") + Str(3, "rs") + Str(4, "u-1") + Str(5, "apps/v1") + Int(6, 0);
  const std::string managed = Str(1, "kubectl") + Str(2, "Update") + Str(3, "v1") +
                              Str(4, Timestamp(1700000000, 0)) + Str(6, "FieldsV1") +
                              Str(7, Str(1, fields_v1)) + Str(8, "");
  const std::string meta =
      Str(1, "n") + Str(2, "g-") + Str(3, "ns") + Str(4, "/self") + Str(5, "uid-1") + Str(6, "42") +
      Int(7, 3) + Str(8, Timestamp(1700000000, 999999999)) + Str(9, Timestamp(1700000060, 5)) +
      Int(10, 0) + Entry(11, "b", "2") + Entry(11, "a", "1") + Entry(12, "note", "x") +
      Str(13, owner) + Str(14, "f1") + Str(14, "f2") + Str(15, "cluster-name-is-gone") +
      Str(17, managed);
  CHECK(Decode(Body("v1", "ConfigMap", Str(1, meta))) == json::parse(R"({
    "apiVersion":"v1","kind":"ConfigMap",
    "metadata":{"name":"n","generateName":"g-","namespace":"ns","selfLink":"/self",
      "uid":"uid-1","resourceVersion":"42","generation":3,
      "creationTimestamp":"2023-11-14T22:13:20Z","deletionTimestamp":"2023-11-14T22:14:20Z",
      "deletionGracePeriodSeconds":0,"labels":{"a":"1","b":"2"},"annotations":{"note":"x"},
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u-1",
                          "controller":false}],
      "finalizers":["f1","f2"],
      "managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1",
        "time":"2023-11-14T22:13:20Z","fieldsType":"FieldsV1",
        "fieldsV1":{"f:data":{"f:a":{}}}}]}})"));
}

TEST_CASE("zero values follow the Go JSON tags", "[protobuf]") {
  SECTION("owner reference strings have no omitempty") {
    const std::string raw = Str(1, Str(1, "n") + Str(13, ""));
    CHECK(Decode(Body("v1", "ConfigMap", raw))["metadata"]["ownerReferences"] ==
          json::parse(R"([{"apiVersion":"","kind":"","name":"","uid":""}])"));
  }
  SECTION("pointers are kept when present, even at their zero value") {
    const std::string raw = Str(1, Meta("c")) + Int(4, 0);
    CHECK(Decode(Body("v1", "ConfigMap", raw))["immutable"] == false);
    const json lease = Decode(Body("coordination.k8s.io/v1", "Lease",
                                   Str(1, Meta("l")) + Str(2, Str(1, "") + Int(2, 0))));
    CHECK(lease["spec"] == json::parse(R"({"holderIdentity":"","leaseDurationSeconds":0})"));
  }
  SECTION("conditions tagged with a patch strategy are omitempty") {
    // Their tags have patchStrategy and patchMergeKey between json and protobuf.
    for (auto [api_version, kind] : {std::pair{"apps/v1", "Deployment"},
                                     {"apps/v1", "ReplicaSet"},
                                     {"autoscaling/v2", "HorizontalPodAutoscaler"},
                                     {"v1", "Node"},
                                     {"v1", "PersistentVolumeClaim"},
                                     {"v1", "ReplicationController"}}) {
      INFO(kind);
      const json status = Decode(Body(api_version, kind, ""))["status"];
      CHECK(status.is_object());
      CHECK(!status.contains("conditions"));
    }
  }
  SECTION("a struct absent from the wire is still written") {
    CHECK(Decode(Body("v1", "Namespace", "")) ==
          json::parse(R"({"apiVersion":"v1","kind":"Namespace",
            "metadata":{"creationTimestamp":null},"spec":{},"status":{}})"));
  }
  SECTION("an empty map value and binaryData in base64") {
    const std::string raw = Str(1, Meta("c")) + Str(2, Str(1, "empty")) +
                            Entry(3, "bin", std::string("\x00\xff\x10", 3));
    const json cm = Decode(Body("v1", "ConfigMap", raw));
    CHECK(cm["data"] == json::parse(R"({"empty":""})"));
    CHECK(cm["binaryData"] == json::parse(R"({"bin":"AP8Q"})"));
  }
  SECTION("stringData, type and immutable of a Secret") {
    const std::string raw = Str(1, Meta("s")) + Entry(2, "b", "hello") + Str(3, "Opaque") +
                            Entry(4, "plain", "text") + Int(5, 1);
    CHECK(Decode(Body("v1", "Secret", raw)) == json::parse(R"({
      "apiVersion":"v1","kind":"Secret","metadata":{"name":"s","creationTimestamp":null},
      "data":{"b":"aGVsbG8="},"type":"Opaque","stringData":{"plain":"text"},"immutable":true})"));
  }
}

TEST_CASE("Event with MicroTime, series and references", "[protobuf]") {
  const std::string ref = Str(1, "Pod") + Str(2, "default") + Str(3, "p") + Str(4, "u") +
                          Str(5, "v1") + Str(6, "7") + Str(7, "spec.containers{c}");
  const std::string raw =
      Str(1, Meta("p.1", "default")) + Str(2, ref) + Str(3, "Pulled") + Str(4, "done") +
      Str(5, Str(1, "kubelet") + Str(2, "node-1")) + Str(6, Timestamp(0, 0)) + Str(7, "") +
      Int(8, 2) + Str(9, "Normal") + Str(10, Timestamp(1700000000, 123456789)) +
      Str(11, Int(1, 5) + Str(2, Timestamp(1700000001, 1000))) + Str(12, "Pull") +
      Str(13, Str(1, "Node") + Str(3, "node-1")) + Str(14, "") + Str(15, "");
  CHECK(Decode(Body("v1", "Event", raw)) == json::parse(R"({
    "apiVersion":"v1","kind":"Event",
    "metadata":{"name":"p.1","namespace":"default","creationTimestamp":null},
    "involvedObject":{"kind":"Pod","namespace":"default","name":"p","uid":"u","apiVersion":"v1",
                      "resourceVersion":"7","fieldPath":"spec.containers{c}"},
    "reason":"Pulled","message":"done","source":{"component":"kubelet","host":"node-1"},
    "firstTimestamp":"1970-01-01T00:00:00Z","lastTimestamp":null,"count":2,"type":"Normal",
    "eventTime":"2023-11-14T22:13:20.123456Z",
    "series":{"count":5,"lastObservedTime":"2023-11-14T22:13:21.000001Z"},
    "action":"Pull","related":{"kind":"Node","name":"node-1"},
    "reportingComponent":"","reportingInstance":""})"));
  // A bare Event: the structs and the strings without omitempty.
  CHECK(Decode(Body("v1", "Event", "")) == json::parse(R"({"apiVersion":"v1","kind":"Event",
    "metadata":{"creationTimestamp":null},"involvedObject":{},"source":{},
    "firstTimestamp":null,"lastTimestamp":null,"eventTime":null,
    "reportingComponent":"","reportingInstance":""})"));
}

TEST_CASE("Lease times and authorization and authentication reviews", "[protobuf]") {
  const std::string spec = Str(1, "holder") + Int(2, 15) + Str(3, Timestamp(1700000000, 0)) +
                           Str(4, Timestamp(1700000000, 500)) + Int(5, 1) +
                           Str(6, "OldestEmulationVersion") + Str(7, "next");
  CHECK(Decode(Body("coordination.k8s.io/v1", "Lease", Str(1, Meta("l")) + Str(2, spec)))["spec"] ==
        json::parse(R"({"holderIdentity":"holder","leaseDurationSeconds":15,
          "acquireTime":"2023-11-14T22:13:20.000000Z","renewTime":"2023-11-14T22:13:20.000000Z",
          "leaseTransitions":1})"));  // strategy and preferredHolder: alpha, not served

  const std::string requirement = Str(1, "metadata.name") + Str(2, "In") + Str(3, "a");
  const std::string attributes = Str(1, "ns") + Str(2, "list") + Str(3, "apps") + Str(4, "v1") +
                                 Str(5, "deployments") + Str(6, "scale") + Str(7, "d") +
                                 Str(8, Str(1, "") + Str(2, requirement)) + Str(9, Str(1, "a=b"));
  const std::string sar_spec = Str(1, attributes) + Str(3, "alice") + Str(4, "g1") + Str(4, "g2") +
                               Str(5, Str(1, "scopes") + Str(2, Str(1, "s1"))) +
                               Str(5, Str(1, "empty")) + Str(6, "uid");
  CHECK(Decode(Body("authorization.k8s.io/v1", "SubjectAccessReview",
                    Str(2, sar_spec) + Str(3, Int(1, 1) + Str(2, "ok") + Int(4, 0)))) ==
        json::parse(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",
          "metadata":{"creationTimestamp":null},
          "spec":{"resourceAttributes":{"namespace":"ns","verb":"list","group":"apps",
              "version":"v1","resource":"deployments","subresource":"scale","name":"d",
              "fieldSelector":{"requirements":[{"key":"metadata.name","operator":"In",
                                                "values":["a"]}]},
              "labelSelector":{"rawSelector":"a=b"}},
            "user":"alice","groups":["g1","g2"],"extra":{"empty":null,"scopes":["s1"]},
            "uid":"uid"},
          "status":{"allowed":true,"reason":"ok"}})"));

  CHECK(Decode(Body("authorization.k8s.io/v1", "SelfSubjectAccessReview",
                    Str(2, Str(2, Str(1, "/healthz") + Str(2, "get")))))["spec"] ==
        json::parse(R"({"nonResourceAttributes":{"path":"/healthz","verb":"get"}})"));

  const std::string status = Int(1, 1) +
                             Str(2, Str(1, "bob") + Str(3, "g") +
                                        Str(4, Str(1, "k") + Str(2, Str(1, "a") + Str(1, "b")))) +
                             Str(3, "") + Str(4, "aud");
  CHECK(Decode(Body("authentication.k8s.io/v1", "TokenReview",
                    Str(2, Str(1, "tok") + Str(2, "aud")) + Str(3, status))) ==
        json::parse(R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview",
          "metadata":{"creationTimestamp":null},"spec":{"token":"tok","audiences":["aud"]},
          "status":{"authenticated":true,"user":{"username":"bob","groups":["g"],
            "extra":{"k":["a","b"]}},"audiences":["aud"]}})"));
  // An empty TokenReview: status.user is a struct.
  CHECK(Decode(Body("authentication.k8s.io/v1", "TokenReview", ""))["status"] ==
        json::parse(R"({"user":{}})"));
}

TEST_CASE("Go unmarshalling semantics", "[protobuf]") {
  SECTION("a repeated embedded message merges, a repeated scalar replaces") {
    const std::string raw = Str(1, Str(1, "first") + Entry(11, "a", "1")) +
                            Str(1, Str(1, "second") + Entry(11, "b", "2"));
    CHECK(Decode(Body("v1", "ConfigMap", raw))["metadata"] ==
          json::parse(R"({"name":"second","labels":{"a":"1","b":"2"},"creationTimestamp":null})"));
  }
  SECTION("unknown fields of every wire type are skipped") {
    const std::string unknown = Int(99, 7) + Key(98, 1) + std::string(8, 'x') + Key(97, 5) +
                                std::string(4, 'y') + Str(96, "z") + Key(95, 3) + Int(1, 1) +
                                Key(94, 3) + Key(94, 4) + Key(95, 4);
    const std::string raw = unknown + Str(1, Meta("c") + unknown) + Entry(2, "k", "v");
    CHECK(Decode(Body("v1", "ConfigMap", raw))["data"] == json::parse(R"({"k":"v"})"));
  }
  SECTION("int32 keeps the low 32 bits; bool is any non-zero varint") {
    const std::string raw = Str(1, Meta("e")) + Int(8, 0x1'0000'0005ULL);
    CHECK(Decode(Body("v1", "Event", raw))["count"] == 5);
    CHECK(Decode(Body("v1", "ConfigMap", Int(4, 300)))["immutable"] == true);
  }
  SECTION("negative numbers") {
    const std::string raw = Str(1, Str(1, "n") + Int(7, static_cast<std::uint64_t>(-2)));
    CHECK(Decode(Body("v1", "ConfigMap", raw))["metadata"]["generation"] == -2);
  }
  SECTION("invalid UTF-8 becomes U+FFFD as Go's JSON encoder writes it") {
    const std::string raw = Str(1, Str(1,
                                       "a\xff"
                                       "b") +
                                       Entry(11, "k\xc0", "\xed\xa0\x80"));
    const json meta = Decode(Body("v1", "ConfigMap", raw))["metadata"];
    CHECK(meta["name"] ==
          "a\xEF\xBF\xBD"
          "b");
    CHECK(meta["labels"] ==
          json::parse("{\"k\xEF\xBF\xBD\":\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"}"));
    CHECK_NOTHROW(meta.dump());
  }
  SECTION("times") {
    auto created = [](std::int64_t seconds, std::int32_t nanos) {
      return Decode(
          Body("v1", "ConfigMap",
               Str(1, Str(8, Timestamp(seconds, nanos)))))["metadata"]["creationTimestamp"];
    };
    CHECK(created(-62135596800, 0).is_null());  // Go's zero time
    CHECK(created(-62135596800, 1) == "0001-01-01T00:00:00Z");
    CHECK(created(0, 0) == "1970-01-01T00:00:00Z");
    CHECK(created(-1, 0) == "1969-12-31T23:59:59Z");
    CHECK(created(951782400, 0) == "2000-02-29T00:00:00Z");
    CHECK(created(253402300799, 0) == "9999-12-31T23:59:59Z");
    CHECK(created(0, -1) == "1969-12-31T23:59:59Z");
    CHECK(created(1, 2'000'000'000) == "1970-01-01T00:00:03Z");
  }
  SECTION("FieldsV1 without raw bytes is null") {
    const std::string raw = Str(1, Str(17, Str(1, "m") + Str(7, "")));
    CHECK(Decode(Body("v1", "ConfigMap", raw))["metadata"]["managedFields"] ==
          json::parse(R"([{"manager":"m","fieldsV1":null}])"));
  }
}

TEST_CASE("malformed bodies are errors", "[protobuf]") {
  const std::string good = Body("v1", "ConfigMap", Str(1, Meta("foo")) + Entry(2, "a", "b"));
  CHECK_THAT(Error("{\"kind\":\"ConfigMap\"}"), Catch::Contains("expected prefix"));
  CHECK_THAT(Error(std::string("k8s", 3)), Catch::Contains("expected prefix"));
  // Custom resources and meta.k8s.io's Table have no messages, as upstream.
  CHECK_THAT(Error(Body("example.com/v1", "Widget", "")), Catch::Contains("no protobuf decoding"));
  CHECK_FALSE(KnowsKind("meta.k8s.io/v1", "Table"));
  CHECK(KnowsKind("v1", "Pod"));
  CHECK_FALSE(KnowsKind("authorization.k8s.io/v1beta1", "SelfSubjectAccessReview"));
  // A truncated varint, a length past the end, a known field with the wrong wire type.
  CHECK(Error(Body("v1", "ConfigMap", Key(1, 2) + "\x80")) == "unexpected EOF");
  CHECK(Error(Body("v1", "ConfigMap", Str(1, Key(7, 0) + "\xff\xff"))) == "unexpected EOF");
  CHECK(Error(Body("v1", "ConfigMap", Key(1, 2) + Varint(50) + "short")) == "unexpected EOF");
  CHECK_THAT(Error(Body("v1", "ConfigMap", Int(1, 5))), Catch::Contains("wrong wireType = 0"));
  CHECK_THAT(Error(Body("v1", "ConfigMap", Str(4, "x"))), Catch::Contains("ConfigMap.immutable"));
  CHECK_THAT(Error(Body("v1", "ConfigMap", Str(1, Str(7, "x")))),
             Catch::Contains("ObjectMeta.generation"));
  CHECK_THAT(Error(Body("v1", "ConfigMap", Int(2, 1))), Catch::Contains("wrong wireType"));
  CHECK_THAT(Error(Body("v1", "ConfigMap", Int(99, 1) + std::string(11, '\xff'))),
             Catch::Contains("overflow"));
  CHECK_THAT(Error(Body("v1", "ConfigMap", Key(9, 4))), Catch::Contains("end group"));
  CHECK_THAT(Error(Body("v1", "ConfigMap", Key(9, 7))), Catch::Contains("illegal wireType"));
  CHECK_THAT(Error(Body("v1", "ConfigMap", std::string(1, '\0'))), Catch::Contains("illegal tag"));
  CHECK_THAT(Error(Body("v1", "ConfigMap", Key(9, 3) + Int(1, 1))), Catch::Contains("EOF"));
  // Not JSON inside FieldsV1.
  CHECK_THAT(Error(Body("v1", "ConfigMap", Str(1, Str(17, Str(7, Str(1, "{nope")))))),
             Catch::Contains("FieldsV1"));
  // Every strict prefix of a valid body is an error or a smaller object; none crashes.
  for (size_t n = 0; n < good.size(); ++n) {
    auto envelope = DecodeEnvelope(std::string_view(good).substr(0, n));
    if (envelope) (void)ToJSON(*envelope);
  }
}

TEST_CASE("random and mutated bytes never crash", "[protobuf]") {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> byte(0, 255);
  const std::string kinds[][2] = {{"v1", "ConfigMap"},
                                  {"v1", "Event"},
                                  {"v1", "Secret"},
                                  {"authorization.k8s.io/v1", "SubjectAccessReview"},
                                  {"authentication.k8s.io/v1", "TokenReview"},
                                  {"coordination.k8s.io/v1", "Lease"}};
  const std::string seed = Str(1, Meta("foo", "ns", Entry(11, "a", "b") + Str(13, Str(1, "k")))) +
                           Entry(2, "a", "b") + Str(10, Timestamp(5, 6));
  int decoded = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string raw;
    if (i % 2 == 0) {
      raw.resize(static_cast<size_t>(byte(rng) % 64));
      for (char& c : raw) c = static_cast<char>(byte(rng));
    } else {
      raw = seed;
      for (int k = 0; k < 3; ++k)
        raw[static_cast<size_t>(byte(rng)) % raw.size()] = static_cast<char>(byte(rng));
    }
    const auto& kind = kinds[static_cast<size_t>(i) % std::size(kinds)];
    auto object = ToJSON({{kind[0], kind[1]}, raw, "", ""});
    if (object) {
      ++decoded;
      CHECK_NOTHROW(object->dump());
    }
    (void)DecodeEnvelope(std::string("k8s\0", 4) + raw);
  }
  CHECK(decoded > 0);
}

TEST_CASE("encoding: what the server sends decodes to the object it encoded", "[protobuf]") {
  const json deployment = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
    "metadata":{"name":"web","namespace":"default","uid":"u","resourceVersion":"5",
      "generation":2,"creationTimestamp":"2024-05-06T07:08:09Z","labels":{"b":"2","a":"1"},
      "annotations":{"note":"x"}},
    "spec":{"replicas":0,"selector":{"matchLabels":{"app":"web"}},
      "template":{"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},
        "spec":{"containers":[{"name":"c","image":"nginx:1.27",
            "ports":[{"containerPort":80,"protocol":"TCP"}],
            "resources":{"limits":{"cpu":"500m","memory":"128Mi"}},
            "readinessProbe":{"httpGet":{"path":"/","port":"http","scheme":"HTTP"},
              "timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},
            "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",
            "imagePullPolicy":"IfNotPresent"}],
          "volumes":[{"name":"data","emptyDir":{"sizeLimit":"1Gi"}},
                     {"name":"cfg","configMap":{"name":"cfg","defaultMode":420}}],
          "restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst",
          "securityContext":{},"schedulerName":"default-scheduler"}},
      "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":1}},
      "revisionHistoryLimit":10,"progressDeadlineSeconds":600},
    "status":{"observedGeneration":2,"replicas":1,"conditions":[{"type":"Available",
      "status":"True","lastUpdateTime":"2024-05-06T07:08:10Z",
      "lastTransitionTime":"2024-05-06T07:08:10Z","reason":"MinimumReplicasAvailable",
      "message":"ok"}]}})");
  auto body = EncodeObject(deployment);
  REQUIRE(body.has_value());
  CHECK(body->starts_with(std::string("k8s\0", 4)));
  json back = Decode(*body);
  // A pointer set to zero stays (replicas: 0); volumes' sources are inline in JSON and a
  // message of their own on the wire; quantities and int-or-strings keep their form.
  CHECK(back == deployment);
  // Field order and map order are Go's: ObjectMeta's labels sorted by key.
  auto envelope = DecodeEnvelope(*body);
  REQUIRE(envelope.has_value());
  CHECK(envelope->raw.find(Entry(11, "a", "1") + Entry(11, "b", "2")) != std::string::npos);
  // The zero replicas pointer is on the wire: DeploymentSpec field 1, varint 0.
  CHECK(envelope->raw.find(std::string("\x08\x00\x12", 3)) != std::string::npos);

  // Status errors, lists and watch events.
  const json status = json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},
    "status":"Failure","message":"pods \"x\" not found","reason":"NotFound",
    "details":{"name":"x","kind":"pods"},"code":404})");
  auto status_body = EncodeObject(status);
  REQUIRE(status_body.has_value());
  CHECK(Decode(*status_body) == status);
  const json list = json::parse(R"({"apiVersion":"v1","kind":"ConfigMapList",
    "metadata":{"resourceVersion":"9","continue":"abc","remainingItemCount":3},
    "items":[{"metadata":{"name":"a","creationTimestamp":null},"data":{"k":"v"}},
             {"metadata":{"name":"b","creationTimestamp":null},"immutable":true}]})");
  auto list_body = EncodeObject(list);
  REQUIRE(list_body.has_value());
  CHECK(Decode(*list_body) == list);
  CHECK_FALSE(EncodeObject(json::parse(R"({"apiVersion":"example.com/v1","kind":"Widget"})")));

  const json added = json::parse(
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","creationTimestamp":null}})");
  auto event = EncodeWatchEvent("ADDED", added);
  REQUIRE(event.has_value());
  // metav1.WatchEvent {1 type, 2 RawExtension {1 raw: a protobuf body}}.
  CHECK(*event == Str(1, "ADDED") + Str(2, Str(1, *EncodeObject(added))));
}

TEST_CASE("encoding: times, durations and byte fields", "[protobuf]") {
  const json event = json::parse(R"({"apiVersion":"v1","kind":"Event",
    "metadata":{"name":"e","namespace":"default","creationTimestamp":null},
    "involvedObject":{"kind":"Pod","name":"p"},"reason":"R","message":"m",
    "source":{"component":"kubelet"},"firstTimestamp":"2024-02-29T23:59:59Z",
    "lastTimestamp":null,"count":1,"type":"Normal","eventTime":"2024-02-29T23:59:59.123456Z",
    "reportingComponent":"","reportingInstance":""})");
  auto body = EncodeObject(event);
  REQUIRE(body.has_value());
  CHECK(Decode(*body) == event);
  const json secret = json::parse(R"({"apiVersion":"v1","kind":"Secret",
    "metadata":{"name":"s","creationTimestamp":null},"data":{"k":"AAEC/w=="},"type":"Opaque"})");
  CHECK(Decode(*EncodeObject(secret)) == secret);
  const json flow = json::parse(R"({"apiVersion":"batch/v1","kind":"CronJob",
    "metadata":{"name":"c","creationTimestamp":null},
    "spec":{"schedule":"* * * * *","jobTemplate":{"metadata":{"creationTimestamp":null},
      "spec":{"template":{"metadata":{"creationTimestamp":null},
        "spec":{"containers":[{"name":"c","image":"busybox","resources":{}}]}}}}},
    "status":{}})");
  CHECK(Decode(*EncodeObject(flow)) == flow);
}
