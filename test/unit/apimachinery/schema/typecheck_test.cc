#include "pkg/genericserver/apimachinery/schema/typecheck.h"

#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/schema/go_values.h"
#include "pkg/master/schemas/schemas.h"

using apimachinery::schema::CheckTypes;
using apimachinery::schema::GoTimeParseError;
using apimachinery::schema::kRFC3339;
using apimachinery::schema::kRFC3339Micro;
using apimachinery::schema::QuantityParseError;
using nlohmann::json;

namespace {

// CheckTypes on a body of the kind `kind` of group-version `gv` ("v1", "apps/v1").
std::optional<std::string> Check(std::string_view gv, std::string_view kind, const char* body) {
  const json* components = schemas::Components(gv);
  REQUIRE(components != nullptr);
  const size_t slash = gv.find('/');
  const std::string_view group = slash == std::string_view::npos ? "" : gv.substr(0, slash);
  const std::string_view version = slash == std::string_view::npos ? gv : gv.substr(slash + 1);
  const auto name = schemas::SchemaNameForKind(group, version, kind);
  REQUIRE(name);
  json object = json::parse(body);
  return CheckTypes(object, *components, *name);
}

// The message for a core/v1 body; "" when it is well typed.
std::string Core(std::string_view kind, const char* body) {
  return Check("v1", kind, body).value_or("");
}

}  // namespace

TEST_CASE("well-typed objects pass", "[typecheck]") {
  CHECK(Core("ConfigMap", R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"a","namespace":"b","labels":{"x":"y"},"annotations":{"a":"b"},
                  "finalizers":["f"],"generation":3,
                  "creationTimestamp":"2024-01-02T03:04:05Z",
                  "ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u",
                                      "controller":true}]},
      "data":{"k":"v"},"binaryData":{"b":"aGVsbG8="},"immutable":false})") == "");
  CHECK(Core("Pod", R"({"spec":{"containers":[{"name":"c","image":"i",
      "ports":[{"containerPort":80,"protocol":"TCP"}],
      "resources":{"limits":{"cpu":"100m","memory":1.5},"requests":{"cpu":2}},
      "livenessProbe":{"httpGet":{"port":"http","path":"/"},"periodSeconds":10},
      "readinessProbe":{"tcpSocket":{"port":8080}},
      "securityContext":{"runAsUser":0,"capabilities":{"add":["NET_ADMIN"]}}}],
      "overhead":{"cpu":"1"},"terminationGracePeriodSeconds":30}})") == "");
  CHECK(Check("apps/v1", "Deployment", R"({"spec":{"replicas":3,
      "strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},
      "selector":{"matchLabels":{"a":"b"}},
      "template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[]}}}})") == std::nullopt);
  CHECK(Check("coordination.k8s.io/v1", "Lease",
              R"({"spec":{"holderIdentity":"h","leaseDurationSeconds":10,
                  "renewTime":"2024-01-02T03:04:05.123456Z"}})") == std::nullopt);
  // Free-form values take anything.
  CHECK(Check("apps/v1", "ControllerRevision", R"({"data":[1,"x",{"a":null}],"revision":1})") ==
        std::nullopt);
  CHECK(Core("Pod", R"({"metadata":{"managedFields":[{"fieldsV1":{"f:a":{}},
      "time":"2024-01-02T03:04:05Z","operation":"Update"}]}})") == "");
}

TEST_CASE("null is accepted everywhere and unknown fields are not checked", "[typecheck]") {
  CHECK(Core("ConfigMap", R"({"metadata":null,"data":null,"immutable":null})") == "");
  CHECK(Core("ConfigMap", R"({"metadata":{"labels":{"a":null},"finalizers":[null],
      "creationTimestamp":null,"generation":null}})") == "");
  CHECK(Core("Pod", R"({"spec":{"containers":[null,{"ports":[{"containerPort":null}],
      "resources":{"limits":{"cpu":null}},"livenessProbe":{"httpGet":{"port":null}}}]}})") == "");
  CHECK(Core("ConfigMap", R"({"unknown":1,"metadata":{"other":[true]},"Data":5})") == "");
}

TEST_CASE("the examples of upstream's messages", "[typecheck]") {
  const std::string p = "json: cannot unmarshal ";
  CHECK(Core("ConfigMap", R"({"data":{"a":1}})") ==
        p + "number into Go struct field ConfigMap.data of type string");
  CHECK(Core("ConfigMap", R"({"data":"x"})") ==
        p + "string into Go struct field ConfigMap.data of type map[string]string");
  CHECK(Core("ConfigMap", R"({"metadata":{"labels":"x"}})") ==
        p + "string into Go struct field ObjectMeta.metadata.labels of type map[string]string");
  CHECK(Core("ConfigMap", R"({"metadata":"x"})") ==
        p + "string into Go struct field ConfigMap.metadata of type v1.ObjectMeta");
  CHECK(Check("coordination.k8s.io/v1", "Lease", R"({"spec":{"leaseDurationSeconds":"10"}})") ==
        p + "string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32");
  CHECK(Core("ConfigMap", R"({"immutable":"yes"})") ==
        p + "string into Go struct field ConfigMap.immutable of type bool");
  CHECK(Core("ConfigMap", R"({"metadata":{"finalizers":[1]}})") ==
        p + "number into Go struct field ObjectMeta.metadata.finalizers of type string");
  CHECK(Core("ConfigMap", R"({"metadata":{"finalizers":"f"}})") ==
        p + "string into Go struct field ObjectMeta.metadata.finalizers of type []string");
  CHECK(Core("ConfigMap", R"({"kind":1})") ==
        p + "number into Go struct field ConfigMap.kind of type string");
}

TEST_CASE("value words and Go type names", "[typecheck]") {
  const std::string p = "json: cannot unmarshal ";
  CHECK(Core("ConfigMap", R"({"data":{"a":true}})") ==
        p + "bool into Go struct field ConfigMap.data of type string");
  CHECK(Core("ConfigMap", R"({"data":{"a":[]}})") ==
        p + "array into Go struct field ConfigMap.data of type string");
  CHECK(Core("ConfigMap", R"({"data":{"a":{}}})") ==
        p + "object into Go struct field ConfigMap.data of type string");
  CHECK(Core("ConfigMap", R"({"data":["a"]})") ==
        p + "array into Go struct field ConfigMap.data of type map[string]string");
  CHECK(Core("ConfigMap", R"({"metadata":[]})") ==
        p + "array into Go struct field ConfigMap.metadata of type v1.ObjectMeta");
  CHECK(Core("Namespace", R"({"status":7})") ==
        p + "number into Go struct field Namespace.status of type v1.NamespaceStatus");
  CHECK(Core("Secret", R"({"data":{"a":1}})") ==
        p + "number into Go struct field Secret.data of type []uint8");
  CHECK(Core("Secret", R"({"data":"x"})") ==
        p + "string into Go struct field Secret.data of type map[string][]uint8");
  CHECK(Core("ConfigMap", R"({"metadata":{"generation":"1"}})") ==
        p + "string into Go struct field ObjectMeta.metadata.generation of type int64");
  // Struct elements of arrays: the struct of the field being decoded, the path without
  // indexes.
  CHECK(Core("Pod", R"({"spec":{"containers":{"name":"a"}}})") ==
        p + "object into Go struct field PodSpec.spec.containers of type []v1.Container");
  CHECK(Core("Pod", R"({"spec":{"containers":["a"]}})") ==
        p + "string into Go struct field PodSpec.spec.containers of type v1.Container");
  CHECK(Core("Pod", R"({"spec":{"containers":[{"name":"a"},{"args":[1]}]}})") ==
        p + "number into Go struct field Container.spec.containers.args of type string");
  CHECK(Core("Pod", R"({"spec":{"containers":[{"env":[{"name":"a","value":9}]}]}})") ==
        p + "number into Go struct field EnvVar.spec.containers.env.value of type string");
  CHECK(Core("Pod", R"({"spec":{"containers":[{"securityContext":{"runAsUser":"root"}}]}})") ==
        p + "string into Go struct field SecurityContext.spec.containers.securityContext."
            "runAsUser of type int64");
  CHECK(Core("Pod", R"({"spec":{"tolerations":[{"value":true}]}})") ==
        p + "bool into Go struct field Toleration.spec.tolerations.value of type string");
  // Fields promoted from an inline struct belong to the outer struct.
  CHECK(Core("Pod", R"({"spec":{"volumes":[{"name":"v","configMap":"x"}]}})") ==
        p + "string into Go struct field Volume.spec.volumes.configMap of type "
            "v1.ConfigMapVolumeSource");
  // A number field given a string.
  CHECK(Check("autoscaling/v2", "HorizontalPodAutoscaler",
              R"({"spec":{"metrics":[{"type":"Resource","resource":{"name":"cpu",
                  "target":{"type":"Utilization","averageUtilization":"50"}}}]}})") ==
        p + "string into Go struct field MetricTarget.spec.metrics.resource.target."
            "averageUtilization of type int32");
}

TEST_CASE("numbers out of range or not integers", "[typecheck]") {
  const std::string p = "json: cannot unmarshal ";
  const char* lease = "coordination.k8s.io/v1";
  CHECK(Check(lease, "Lease", R"({"spec":{"leaseDurationSeconds":3000000000}})") ==
        p + "number 3000000000 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type "
            "int32");
  CHECK(Check(lease, "Lease", R"({"spec":{"leaseDurationSeconds":-2147483649}})") ==
        p + "number -2147483649 into Go struct field LeaseSpec.spec.leaseDurationSeconds of "
            "type int32");
  CHECK(Check(lease, "Lease", R"({"spec":{"leaseDurationSeconds":2147483647}})") == std::nullopt);
  CHECK(Check(lease, "Lease", R"({"spec":{"leaseDurationSeconds":-2147483648}})") == std::nullopt);
  CHECK(Check(lease, "Lease", R"({"spec":{"leaseDurationSeconds":1.5}})") ==
        p + "number 1.5 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32");
  CHECK(Check(lease, "Lease", R"({"spec":{"leaseDurationSeconds":1.0}})") ==
        p + "number 1.0 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32");
  CHECK(Core("ConfigMap", R"({"metadata":{"generation":9223372036854775807}})") == "");
  CHECK(Core("ConfigMap", R"({"metadata":{"generation":9223372036854775808}})") ==
        p + "number 9223372036854775808 into Go struct field ObjectMeta.metadata.generation of "
            "type int64");
  CHECK(Check("autoscaling/v2", "HorizontalPodAutoscaler",
              R"({"spec":{"behavior":{"scaleUp":{"policies":[{"value":1.5}]}}}})") ==
        p + "number 1.5 into Go struct field HPAScalingPolicy.spec.behavior.scaleUp.policies."
            "value of type int32");
}

TEST_CASE("byte fields", "[typecheck]") {
  const std::string p = "json: cannot unmarshal ";
  // Go decodes a JSON array into a []byte element by element.
  CHECK(Core("Secret", R"({"data":{"a":[1,2,255]}})") == "");
  CHECK(Core("Secret", R"({"data":{"a":[256]}})") ==
        p + "number 256 into Go struct field Secret.data of type uint8");
  CHECK(Core("Secret", R"({"data":{"a":["x"]}})") ==
        p + "string into Go struct field Secret.data of type uint8");
  CHECK(Core("ConfigMap", R"({"binaryData":{"a":{}}})") ==
        p + "object into Go struct field ConfigMap.binaryData of type []uint8");
}

TEST_CASE("the first mismatch in key order is reported", "[typecheck]") {
  const std::string p = "json: cannot unmarshal ";
  // nlohmann's objects are sorted: "data" before "immutable" before "metadata".
  CHECK(Core("ConfigMap", R"({"metadata":{"labels":1},"immutable":"x","data":{"a":1}})") ==
        p + "number into Go struct field ConfigMap.data of type string");
  CHECK(Core("ConfigMap", R"({"metadata":{"name":1,"labels":1}})") ==
        p + "number into Go struct field ObjectMeta.metadata.labels of type map[string]string");
}

TEST_CASE("time fields", "[typecheck]") {
  const std::string p = "json: cannot unmarshal ";
  CHECK(Core("ConfigMap", R"({"metadata":{"creationTimestamp":1}})") ==
        p + "number into Go struct field ObjectMeta.metadata.creationTimestamp of type string");
  CHECK(Core("ConfigMap", R"({"metadata":{"deletionTimestamp":{}}})") ==
        p + "object into Go struct field ObjectMeta.metadata.deletionTimestamp of type string");
  CHECK(Core("ConfigMap", R"({"metadata":{"creationTimestamp":"x"}})") ==
        R"(parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006")");
  CHECK(Core("ConfigMap", R"({"metadata":{"creationTimestamp":"2024-01-02"}})") ==
        R"(parsing time "2024-01-02" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T")");
  // The error of a custom decoder stops decoding and wins over an earlier mismatch.
  CHECK(Core("ConfigMap", R"({"data":{"a":1},"metadata":{"creationTimestamp":"x"}})") ==
        R"(parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006")");
  CHECK(Core("Pod", R"({"metadata":{"managedFields":[{"time":"2024-01-02T03:04:05+01:00"}]}})") ==
        "");
  // MicroTime wants exactly six fractional digits.
  CHECK(Check("coordination.k8s.io/v1", "Lease",
              R"({"spec":{"renewTime":"2024-01-02T03:04:05Z"}})") ==
        R"(parsing time "2024-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": )"
        R"(cannot parse "Z" as ".000000")");
  CHECK(Check("coordination.k8s.io/v1", "Lease", R"({"spec":{"acquireTime":true}})") ==
        p + "bool into Go struct field LeaseSpec.spec.acquireTime of type string");
}

TEST_CASE("Go's time.Parse messages for RFC 3339", "[typecheck]") {
  auto parse = [](std::string_view v) { return GoTimeParseError(kRFC3339, v).value_or(""); };
  const std::string head = R"(parsing time )";
  CHECK(parse("2024-01-02T03:04:05Z") == "");
  CHECK(parse("2024-01-02T03:04:05.123456789Z") == "");
  CHECK(parse("2024-01-02T03:04:05,5-07:00") == "");
  CHECK(parse("2024-01-02T3:04:05Z") == "");  // the hour may have one digit
  CHECK(parse("2024-02-29T00:00:00Z") == "");
  CHECK(parse("") ==
        R"(parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006")");
  CHECK(
      parse("22-10-25") ==
      R"(parsing time "22-10-25" as "2006-01-02T15:04:05Z07:00": cannot parse "22-10-25" as "2006")");
  CHECK(
      parse("2024/01/02") ==
      R"(parsing time "2024/01/02" as "2006-01-02T15:04:05Z07:00": cannot parse "/01/02" as "-")");
  CHECK(
      parse("2024-1-02T03:04:05Z") ==
      R"(parsing time "2024-1-02T03:04:05Z" as "2006-01-02T15:04:05Z07:00": cannot parse "1-02T03:04:05Z" as "01")");
  CHECK(parse("2024-13-02T03:04:05Z") ==
        R"(parsing time "2024-13-02T03:04:05Z": month out of range)");
  CHECK(parse("2024-02-30T03:04:05Z") ==
        R"(parsing time "2024-02-30T03:04:05Z": day out of range)");
  CHECK(parse("2023-02-29T03:04:05Z") ==
        R"(parsing time "2023-02-29T03:04:05Z": day out of range)");
  CHECK(parse("2024-01-02T24:04:05Z") ==
        R"(parsing time "2024-01-02T24:04:05Z": hour out of range)");
  CHECK(parse("2024-01-02T03:60:05Z") ==
        R"(parsing time "2024-01-02T03:60:05Z": minute out of range)");
  CHECK(parse("2024-01-02T03:04:60Z") ==
        R"(parsing time "2024-01-02T03:04:60Z": second out of range)");
  CHECK(
      parse("2024-01-02T03:04:05") ==
      R"(parsing time "2024-01-02T03:04:05" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00")");
  CHECK(
      parse("2024-01-02T03:04:05+0100") ==
      R"(parsing time "2024-01-02T03:04:05+0100" as "2006-01-02T15:04:05Z07:00": cannot parse "+0100" as "Z07:00")");
  CHECK(parse("2024-01-02T03:04:05Zjunk") ==
        R"(parsing time "2024-01-02T03:04:05Zjunk": extra text: "junk")");
  CHECK(
      parse("2024-01-02 03:04:05Z") ==
      R"(parsing time "2024-01-02 03:04:05Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 03:04:05Z" as "T")");
  CHECK(
      parse("2024-01-02T03:04:05*01:00") ==
      R"(parsing time "2024-01-02T03:04:05*01:00" as "2006-01-02T15:04:05Z07:00": cannot parse "*01:00" as "Z07:00")");
  CHECK(
      parse("é\"\\") ==
      R"(parsing time "\xc3\xa9\"\\" as "2006-01-02T15:04:05Z07:00": cannot parse "\xc3\xa9\"\\" as "2006")");
  auto micro = [](std::string_view v) { return GoTimeParseError(kRFC3339Micro, v).value_or(""); };
  CHECK(micro("2024-01-02T03:04:05.123456Z") == "");
  CHECK(micro("2024-01-02T03:04:05.123456+02:00") == "");
  CHECK(
      micro("2024-01-02T03:04:05.123Z") ==
      R"(parsing time "2024-01-02T03:04:05.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000")");
  CHECK(
      micro("2024-01-02T03:04:05.1234567Z") ==
      R"(parsing time "2024-01-02T03:04:05.1234567Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "7Z" as "Z07:00")");
}

TEST_CASE("IntOrString fields", "[typecheck]") {
  const std::string p = "json: cannot unmarshal ";
  CHECK(Core("Service", R"({"spec":{"ports":[{"port":80,"targetPort":"http"}]}})") == "");
  CHECK(Core("Service", R"({"spec":{"ports":[{"port":80,"targetPort":8080}]}})") == "");
  CHECK(Core("Service", R"({"spec":{"ports":[{"targetPort":true}]}})") ==
        p + "bool into Go struct field ServicePort.spec.ports.targetPort of type int32");
  CHECK(Core("Service", R"({"spec":{"ports":[{"targetPort":{}}]}})") ==
        p + "object into Go struct field ServicePort.spec.ports.targetPort of type int32");
  CHECK(Core("Service", R"({"spec":{"ports":[{"targetPort":1.5}]}})") ==
        p + "number 1.5 into Go struct field ServicePort.spec.ports.targetPort of type int32");
  CHECK(Core("Service", R"({"spec":{"ports":[{"targetPort":3000000000}]}})") ==
        p + "number 3000000000 into Go struct field ServicePort.spec.ports.targetPort of type "
            "int32");
  CHECK(Check("apps/v1", "Deployment",
              R"({"spec":{"strategy":{"rollingUpdate":{"maxSurge":[1]}}}})") ==
        p + "array into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate."
            "maxSurge of type int32");
  // The custom decoder's error stops decoding: a later mismatch is not reached, an earlier
  // one loses.
  CHECK(Core("Service", R"({"metadata":{"labels":1},"spec":{"ports":[{"targetPort":true}]}})") ==
        p + "bool into Go struct field ServicePort.spec.ports.targetPort of type int32");
}

TEST_CASE("Quantity fields", "[typecheck]") {
  const std::string re =
      "quantities must match the regular expression "
      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  CHECK(Core("Pod", R"({"spec":{"containers":[{"resources":{"limits":{"cpu":"1 cpu"}}}]}})") == re);
  CHECK(Core("Pod", R"({"spec":{"containers":[{"resources":{"limits":{"cpu":true}}}]}})") == re);
  CHECK(Core("Pod", R"({"spec":{"containers":[{"resources":{"limits":{"cpu":{}}}}]}})") == re);
  CHECK(Core("Pod", R"({"spec":{"containers":[{"resources":{"limits":{"memory":"1Gb"}}}]}})") ==
        re);
  CHECK(Core("Pod", R"({"spec":{"containers":[{"resources":{"limits":{"memory":"1Mm"}}}]}})") ==
        "unable to parse quantity's suffix");
  CHECK(Core("Pod", R"({"spec":{"containers":[{"resources":{"limits":{"memory":""}}}]}})") == re);
  CHECK(Core("Pod", R"({"spec":{"containers":[{"resources":{"limits":"x"}}]}})") ==
        "json: cannot unmarshal string into Go struct field ResourceRequirements.spec."
        "containers.resources.limits of type v1.ResourceList");

  CHECK(QuantityParseError("100m") == std::nullopt);
  CHECK(QuantityParseError(" 1.5Gi ") == std::nullopt);
  CHECK(QuantityParseError("-1e3") == std::nullopt);
  CHECK(QuantityParseError("1E+3") == std::nullopt);
  CHECK(QuantityParseError("+.5") == std::nullopt);
  CHECK(QuantityParseError("0") == std::nullopt);
  CHECK(QuantityParseError("-") == std::nullopt);
  CHECK(QuantityParseError("m") == std::nullopt);
  CHECK(QuantityParseError("123456789012345678901234567890Ki") == std::nullopt);
  CHECK(QuantityParseError("1e") == "unable to parse quantity's suffix");
  CHECK(QuantityParseError("1ki") == "unable to parse quantity's suffix");
  CHECK(QuantityParseError("1e99999999999999999999") == "unable to parse quantity's suffix");
  CHECK(QuantityParseError("e-10") == "unable to parse numeric part of quantity");
  CHECK(QuantityParseError("1.2.3") == re);
  CHECK(QuantityParseError("1e3e") == re);
  CHECK(QuantityParseError("abc") == re);
  CHECK(QuantityParseError("\t") == re);
}

TEST_CASE("named Go types of built-in fields", "[typecheck]") {
  const std::string p = "json: cannot unmarshal ";
  CHECK(Core("ConfigMap", R"({"metadata":{"uid":1}})") ==
        p + "number into Go struct field ObjectMeta.metadata.uid of type types.UID");
  CHECK(Core("ConfigMap", R"({"metadata":{"ownerReferences":[{"uid":true}]}})") ==
        p + "bool into Go struct field OwnerReference.metadata.ownerReferences.uid of type "
            "types.UID");
  CHECK(Core("Pod", R"({"spec":{"restartPolicy":1}})") ==
        p + "number into Go struct field PodSpec.spec.restartPolicy of type v1.RestartPolicy");
  CHECK(Core("Pod", R"({"spec":{"containers":[{"securityContext":{"capabilities":{
      "add":"NET_ADMIN"}}}]}})") ==
        p + "string into Go struct field Capabilities.spec.containers.securityContext."
            "capabilities.add of type []v1.Capability");
  CHECK(Core("Pod", R"({"spec":{"containers":[{"securityContext":{"capabilities":{
      "drop":[1]}}}]}})") ==
        p + "number into Go struct field Capabilities.spec.containers.securityContext."
            "capabilities.drop of type v1.Capability");
  CHECK(Core("PersistentVolumeClaim", R"({"spec":{"accessModes":"ReadWriteOnce"}})") ==
        p + "string into Go struct field PersistentVolumeClaimSpec.spec.accessModes of type "
            "[]v1.PersistentVolumeAccessMode");
  CHECK(Core("Namespace", R"({"spec":{"finalizers":[1]}})") ==
        p + "number into Go struct field NamespaceSpec.spec.finalizers of type v1.FinalizerName");
  CHECK(Core("Service", R"({"spec":{"type":1}})") ==
        p + "number into Go struct field ServiceSpec.spec.type of type v1.ServiceType");
  CHECK(Check("apps/v1", "Deployment", R"({"spec":{"strategy":{"type":1}}})") ==
        p + "number into Go struct field DeploymentStrategy.spec.strategy.type of type "
            "v1.DeploymentStrategyType");
  // The resources of a claim are a VolumeResourceRequirements since 1.29, though described
  // by ResourceRequirements.
  CHECK(Core("PersistentVolumeClaim", R"({"spec":{"resources":[]}})") ==
        p + "array into Go struct field PersistentVolumeClaimSpec.spec.resources of type "
            "v1.VolumeResourceRequirements");
  CHECK(Core("PersistentVolumeClaim", R"({"spec":{"resources":{"requests":"1Gi"}}})") ==
        p + "string into Go struct field VolumeResourceRequirements.spec.resources.requests of "
            "type v1.ResourceList");
  CHECK(Check("apps/v1", "StatefulSet",
              R"({"spec":{"volumeClaimTemplates":[{"spec":{"resources":{"limits":1}}}]}})") ==
        p + "number into Go struct field VolumeResourceRequirements.spec.volumeClaimTemplates."
            "spec.resources.limits of type v1.ResourceList");
  // A map of a named slice type.
  const char* csr = "certificates.k8s.io/v1";
  CHECK(Check(csr, "CertificateSigningRequest", R"({"spec":{"extra":[]}})") ==
        p + "array into Go struct field CertificateSigningRequestSpec.spec.extra of type "
            "map[string]v1.ExtraValue");
  CHECK(Check(csr, "CertificateSigningRequest", R"({"spec":{"extra":{"a":"b"}}})") ==
        p + "string into Go struct field CertificateSigningRequestSpec.spec.extra of type "
            "v1.ExtraValue");
  CHECK(Check(csr, "CertificateSigningRequest", R"({"spec":{"extra":{"a":[1]}}})") ==
        p + "number into Go struct field CertificateSigningRequestSpec.spec.extra of type "
            "string");
  CHECK(Check(csr, "CertificateSigningRequest", R"({"spec":{"request":7}})") ==
        p + "number into Go struct field CertificateSigningRequestSpec.spec.request of type "
            "[]uint8");
}

TEST_CASE("unknown schema names and non-object bodies", "[typecheck]") {
  const json* components = schemas::Components("v1");
  REQUIRE(components != nullptr);
  json data = json::parse(R"({"data":1})");
  CHECK(CheckTypes(data, *components, "no.such.Schema") == std::nullopt);
  json array = json::parse("[1]");
  CHECK(CheckTypes(array, *components, "io.k8s.api.core.v1.ConfigMap") ==
        "json: cannot unmarshal array into Go value of type v1.ConfigMap");
}

TEST_CASE("times are kept as upstream re-encodes them", "[typecheck]") {
  const json* lease_components = schemas::Components("coordination.k8s.io/v1");
  REQUIRE(lease_components != nullptr);
  // A MicroTime takes exactly six digits.
  json nanos = json::parse(R"({"spec":{"acquireTime":"2025-01-02T03:04:05.123456789+00:00"}})");
  CHECK(CheckTypes(nanos, *lease_components, "io.k8s.api.coordination.v1.Lease") != std::nullopt);
  // What the Python client sends: offsets, and Python's microseconds on a Time too.
  json good = json::parse(R"({"metadata":{"creationTimestamp":"2025-01-02T03:04:05.123456+00:00"},
    "spec":{"acquireTime":"2025-01-01T23:04:05.123456-04:30",
            "renewTime":"2025-01-02T05:04:06.654321+02:00"}})");
  REQUIRE(CheckTypes(good, *lease_components, "io.k8s.api.coordination.v1.Lease") == std::nullopt);
  CHECK(good["metadata"]["creationTimestamp"] == "2025-01-02T03:04:05Z");
  CHECK(good["spec"]["acquireTime"] == "2025-01-02T03:34:05.123456Z");
  CHECK(good["spec"]["renewTime"] == "2025-01-02T03:04:06.654321Z");

  using apimachinery::schema::GoTimeCanonical;
  using apimachinery::schema::kRFC3339;
  CHECK(GoTimeCanonical(kRFC3339, "2024-12-31T23:30:00-01:00") == "2025-01-01T00:30:00Z");
  CHECK(GoTimeCanonical(kRFC3339, "2024-03-01T00:30:00+01:00") == "2024-02-29T23:30:00Z");
  CHECK(GoTimeCanonical(kRFC3339, "1969-12-31T23:59:59Z") == "1969-12-31T23:59:59Z");
  CHECK(GoTimeCanonical(kRFC3339, "2024-01-02T3:04:05Z") == "2024-01-02T03:04:05Z");
  CHECK(GoTimeCanonical(kRFC3339, "0000-01-01T00:00:00+01:00") == std::nullopt);
}

TEST_CASE("quantities are stored in upstream's canonical form", "[typecheck]") {
  using apimachinery::schema::QuantityCanonical;
  const std::vector<std::pair<std::string, std::string>> cases = {{"1000m", "1"},
                                                                  {"0.5", "500m"},
                                                                  {"1.5", "1500m"},
                                                                  {"1500", "1500"},
                                                                  {"1000", "1k"},
                                                                  {"1000000", "1M"},
                                                                  {"100M", "100M"},
                                                                  {"2048", "2048"},
                                                                  {"1.5Gi", "1536Mi"},
                                                                  {"1024Mi", "1Gi"},
                                                                  {"512Ki", "512Ki"},
                                                                  {"0.5Ki", "512"},
                                                                  {"1023", "1023"},
                                                                  {"0.1Gi", "107374182400m"},
                                                                  {"1e3", "1e3"},
                                                                  {"1.5e3", "1500"},
                                                                  {"-1", "-1"},
                                                                  {"+1", "1"},
                                                                  {"01", "1"},
                                                                  {"1.0", "1"},
                                                                  {"0", "0"},
                                                                  {"0.0000000001", "1n"},
                                                                  {"128974848", "128974848"},
                                                                  {"129e6", "129e6"},
                                                                  {"123Mi", "123Mi"},
                                                                  {"0.000001", "1u"}};
  for (const auto& [in, want] : cases) {
    INFO(in);
    CHECK(QuantityCanonical(in) == want);
  }
  CHECK(QuantityCanonical("1Gb") == std::nullopt);
  // In an object, strings and numbers alike.
  json pod = json::parse(
      R"({"spec":{"containers":[{"resources":{"limits":{"cpu":0.5,"memory":"1024Mi"}}}]}})");
  REQUIRE(apimachinery::schema::CheckTypes(pod, *schemas::Components("v1"),
                                           "io.k8s.api.core.v1.Pod") == std::nullopt);
  CHECK(pod["spec"]["containers"][0]["resources"]["limits"] ==
        json::parse(R"({"cpu":"500m","memory":"1Gi"})"));
}
