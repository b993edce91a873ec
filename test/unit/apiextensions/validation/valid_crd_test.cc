#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/crd_validation.h"
#include "test/unit/apiextensions/validation/support.h"

using nlohmann::json;
using Strings = std::vector<std::string>;

namespace {

// A CRD as operators ship them: two versions with their own schemas, a deprecated one, the
// status and scale subresources, printer columns, selectable fields, a conversion webhook,
// and schemas using defaults, enums, patterns, int-or-string, embedded resources, set and map
// lists and validation rules.
json RealisticCRD() {
  const json v1 = json::parse(R"j({
    "type": "object",
    "description": "A fleet of workers.",
    "required": ["spec"],
    "properties": {
      "apiVersion": {"type": "string"},
      "kind": {"type": "string"},
      "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 63}}},
      "spec": {
        "type": "object",
        "required": ["image"],
        "x-kubernetes-validations": [
          {"rule": "self.minReplicas <= self.replicas", "message": "replicas below minimum",
           "fieldPath": ".replicas", "reason": "FieldValueInvalid"},
          {"rule": "!has(oldSelf.image) || self.image == oldSelf.image",
           "messageExpression": "'image is immutable: ' + oldSelf.image"}
        ],
        "properties": {
          "image": {"type": "string", "minLength": 1,
                    "pattern": "^[a-z0-9]+([._-][a-z0-9]+)*(/[a-z0-9]+([._-][a-z0-9]+)*)*(:[\\w][\\w.-]{0,127})?$"},
          "replicas": {"type": "integer", "format": "int32", "minimum": 0, "default": 1},
          "minReplicas": {"type": "integer", "format": "int32", "minimum": 0, "default": 0},
          "mode": {"type": "string", "enum": ["Fast", "Safe"], "default": "Safe"},
          "resources": {
            "type": "object",
            "additionalProperties": {
              "x-kubernetes-int-or-string": true,
              "anyOf": [{"type": "integer"}, {"type": "string"}],
              "pattern": "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$"
            }
          },
          "maxUnavailable": {"x-kubernetes-int-or-string": true, "default": "25%"},
          "ports": {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
            "maxItems": 16,
            "items": {
              "type": "object",
              "required": ["containerPort"],
              "properties": {
                "containerPort": {"type": "integer", "format": "int32", "maximum": 65535},
                "protocol": {"type": "string", "default": "TCP", "enum": ["TCP", "UDP", "SCTP"]},
                "name": {"type": "string"}
              }
            }
          },
          "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
          "selector": {
            "type": "object",
            "x-kubernetes-map-type": "atomic",
            "properties": {"matchLabels": {"type": "object",
                                           "additionalProperties": {"type": "string"}}}
          },
          "template": {
            "type": "object",
            "x-kubernetes-embedded-resource": true,
            "x-kubernetes-preserve-unknown-fields": true,
            "properties": {"metadata": {"type": "object",
                                        "properties": {"labels": {"type": "object",
                                            "additionalProperties": {"type": "string"}}}}}
          },
          "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                     "default": {"logLevel": "info", "extra": {"any": [1, 2]}}},
          "schedule": {"type": "string", "nullable": true},
          "owner": {
            "type": "object",
            "oneOf": [{"required": ["user"]}, {"required": ["group"]}],
            "properties": {"user": {"type": "string"}, "group": {"type": "string"}}
          }
        }
      },
      "status": {
        "type": "object",
        "properties": {
          "replicas": {"type": "integer"},
          "selector": {"type": "string"},
          "phase": {"type": "string"},
          "conditions": {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["type"],
            "items": {
              "type": "object",
              "required": ["type", "status"],
              "properties": {
                "type": {"type": "string"},
                "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
                "lastTransitionTime": {"type": "string", "format": "date-time"},
                "message": {"type": "string", "maxLength": 32768}
              }
            }
          }
        }
      }
    }
  })j");
  json v1beta1 = v1;
  v1beta1["properties"]["spec"]["properties"].erase("maxUnavailable");
  v1beta1["properties"]["spec"]["x-kubernetes-validations"].erase(1);

  json crd = json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "workerfleets.fleet.example.io",
                 "labels": {"app.kubernetes.io/part-of": "fleet"}},
    "spec": {
      "group": "fleet.example.io",
      "scope": "Namespaced",
      "names": {"plural": "workerfleets", "singular": "workerfleet", "kind": "WorkerFleet",
                "listKind": "WorkerFleetList", "shortNames": ["wf", "fleet"],
                "categories": ["all", "fleet-tools"]},
      "conversion": {
        "strategy": "Webhook",
        "webhook": {
          "conversionReviewVersions": ["v1", "v1beta1"],
          "clientConfig": {"service": {"namespace": "fleet-system", "name": "fleet-webhook",
                                       "path": "/convert", "port": 9443}}
        }
      }
    },
    "status": {"storedVersions": ["v1beta1", "v1"]}
  })");
  const json subresources = json::parse(R"({"status": {}, "scale": {
      "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas",
      "labelSelectorPath": ".status.selector"}})");
  const json columns = json::parse(R"([
      {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
      {"name": "Phase", "type": "string", "jsonPath": ".status.phase", "priority": 0},
      {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}])");
  crd["spec"]["versions"] = json::array({
      {{"name", "v1beta1"},
       {"served", true},
       {"storage", false},
       {"deprecated", true},
       {"deprecationWarning", "fleet.example.io/v1beta1 WorkerFleet is deprecated; use v1"},
       {"schema", {{"openAPIV3Schema", v1beta1}}},
       {"subresources", subresources},
       {"additionalPrinterColumns", columns}},
      {{"name", "v1"},
       {"served", true},
       {"storage", true},
       {"schema", {{"openAPIV3Schema", v1}}},
       {"subresources", subresources},
       {"additionalPrinterColumns", columns},
       {"selectableFields", {{{"jsonPath", ".spec.mode"}}, {{"jsonPath", ".spec.image"}}}}},
  });
  return crd;
}

}  // namespace

TEST_CASE("CRD validation: a realistic CRD is valid on create, update and status update",
          "[crd-validation]") {
  json crd = RealisticCRD();
  CHECK(crdval_test::Create(crd).empty());

  apiextensions::validation::SetDefaults(crd);
  CHECK(crd["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["port"] == 9443);
  CHECK(crdval_test::Create(crd).empty());

  json established = crd;
  established["status"]["conditions"] =
      json::parse(R"([{"type": "Established", "status": "True"}])");
  established["status"]["acceptedNames"] = crd["spec"]["names"];
  CHECK(crdval_test::Update(established, established).empty());
  CHECK(crdval_test::StatusUpdate(established, established).empty());

  // It fails as soon as one thing in it is wrong.
  json broken = crd;
  broken["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        ["ports"]["x-kubernetes-list-map-keys"] = {"containerPort", "name"};
  CHECK(crdval_test::Create(broken) ==
        Strings{"spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[ports]."
                "items.properties[name].default: Required value: this property is in "
                "x-kubernetes-list-map-keys, so it must have a default or be a required property"});
}
