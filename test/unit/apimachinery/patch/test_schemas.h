#pragma once
// OpenAPI v3 component schemas for the patch tests, written by hand from the Kubernetes 1.26
// OpenAPI document (properties trimmed to those the tests use, descriptions left out), in
// its shape: `allOf` wrappers around `$ref`s, x-kubernetes-patch-* extensions on properties.

namespace patch_test {

// Deployment, ConfigMap and the types they use.
inline constexpr const char* kKubeComponents = R"json({"components": {"schemas": {
"io.k8s.api.apps.v1.Deployment": {"type": "object", "properties": {
  "apiVersion": {"type": "string"}, "kind": {"type": "string"},
  "metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}},
  "spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec"}], "default": {}},
  "status": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentStatus"}], "default": {}}}},
"io.k8s.api.apps.v1.DeploymentSpec": {"type": "object", "required": ["selector", "template"], "properties": {
  "minReadySeconds": {"type": "integer", "format": "int32"},
  "paused": {"type": "boolean"},
  "replicas": {"type": "integer", "format": "int32"},
  "revisionHistoryLimit": {"type": "integer", "format": "int32"},
  "selector": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"}]},
  "strategy": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy"}], "default": {}, "x-kubernetes-patch-strategy": "retainKeys"},
  "template": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec"}], "default": {}}}},
"io.k8s.api.apps.v1.DeploymentStrategy": {"type": "object", "properties": {
  "rollingUpdate": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.apps.v1.RollingUpdateDeployment"}]},
  "type": {"type": "string", "enum": ["Recreate", "RollingUpdate"]}}},
"io.k8s.api.apps.v1.RollingUpdateDeployment": {"type": "object", "properties": {
  "maxSurge": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString"}]},
  "maxUnavailable": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString"}]}}},
"io.k8s.api.apps.v1.DeploymentStatus": {"type": "object", "properties": {
  "conditions": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentCondition"}], "default": {}}, "x-kubernetes-patch-merge-key": "type", "x-kubernetes-patch-strategy": "merge"},
  "observedGeneration": {"type": "integer", "format": "int64"},
  "replicas": {"type": "integer", "format": "int32"}}},
"io.k8s.api.apps.v1.DeploymentCondition": {"type": "object", "required": ["type", "status"], "properties": {
  "message": {"type": "string"}, "reason": {"type": "string"},
  "status": {"type": "string", "default": ""}, "type": {"type": "string", "default": ""}}},
"io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"format": "int-or-string", "oneOf": [{"type": "integer"}, {"type": "string"}]},
"io.k8s.apimachinery.pkg.api.resource.Quantity": {"type": "string"},
"io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector": {"type": "object", "x-kubernetes-map-type": "atomic", "properties": {
  "matchExpressions": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement"}], "default": {}}},
  "matchLabels": {"type": "object", "additionalProperties": {"type": "string", "default": ""}}}},
"io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement": {"type": "object", "properties": {
  "key": {"type": "string", "default": ""}, "operator": {"type": "string", "default": ""},
  "values": {"type": "array", "items": {"type": "string", "default": ""}}}},
"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {"type": "object", "properties": {
  "annotations": {"type": "object", "additionalProperties": {"type": "string", "default": ""}},
  "creationTimestamp": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time"}], "default": {}},
  "finalizers": {"type": "array", "items": {"type": "string", "default": ""}, "x-kubernetes-patch-strategy": "merge"},
  "generation": {"type": "integer", "format": "int64"},
  "labels": {"type": "object", "additionalProperties": {"type": "string", "default": ""}},
  "name": {"type": "string"}, "namespace": {"type": "string"},
  "ownerReferences": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"}], "default": {}}, "x-kubernetes-patch-merge-key": "uid", "x-kubernetes-patch-strategy": "merge"},
  "resourceVersion": {"type": "string"}, "uid": {"type": "string"}}},
"io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference": {"type": "object", "x-kubernetes-map-type": "atomic", "properties": {
  "apiVersion": {"type": "string", "default": ""}, "controller": {"type": "boolean"},
  "kind": {"type": "string", "default": ""}, "name": {"type": "string", "default": ""}, "uid": {"type": "string", "default": ""}}},
"io.k8s.apimachinery.pkg.apis.meta.v1.Time": {"type": "string", "format": "date-time"},
"io.k8s.api.core.v1.PodTemplateSpec": {"type": "object", "properties": {
  "metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}},
  "spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodSpec"}], "default": {}}}},
"io.k8s.api.core.v1.PodSpec": {"type": "object", "required": ["containers"], "properties": {
  "containers": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.Container"}], "default": {}}, "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"},
  "imagePullSecrets": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.LocalObjectReference"}], "default": {}}, "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"},
  "initContainers": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.Container"}], "default": {}}, "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"},
  "nodeSelector": {"type": "object", "additionalProperties": {"type": "string", "default": ""}, "x-kubernetes-map-type": "atomic"},
  "restartPolicy": {"type": "string"},
  "serviceAccountName": {"type": "string"},
  "tolerations": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.Toleration"}], "default": {}}},
  "volumes": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.Volume"}], "default": {}}, "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge,retainKeys"}}},
"io.k8s.api.core.v1.Container": {"type": "object", "required": ["name"], "properties": {
  "args": {"type": "array", "items": {"type": "string", "default": ""}},
  "command": {"type": "array", "items": {"type": "string", "default": ""}},
  "env": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.EnvVar"}], "default": {}}, "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"},
  "image": {"type": "string"},
  "imagePullPolicy": {"type": "string", "enum": ["Always", "IfNotPresent", "Never"]},
  "name": {"type": "string", "default": ""},
  "ports": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.ContainerPort"}], "default": {}}, "x-kubernetes-list-map-keys": ["containerPort", "protocol"], "x-kubernetes-list-type": "map", "x-kubernetes-patch-merge-key": "containerPort", "x-kubernetes-patch-strategy": "merge"},
  "resources": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.ResourceRequirements"}], "default": {}},
  "volumeMounts": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.VolumeMount"}], "default": {}}, "x-kubernetes-patch-merge-key": "mountPath", "x-kubernetes-patch-strategy": "merge"}}},
"io.k8s.api.core.v1.ContainerPort": {"type": "object", "required": ["containerPort"], "properties": {
  "containerPort": {"type": "integer", "format": "int32", "default": 0},
  "hostPort": {"type": "integer", "format": "int32"}, "name": {"type": "string"},
  "protocol": {"type": "string", "default": "TCP", "enum": ["SCTP", "TCP", "UDP"]}}},
"io.k8s.api.core.v1.EnvVar": {"type": "object", "required": ["name"], "properties": {
  "name": {"type": "string", "default": ""}, "value": {"type": "string"},
  "valueFrom": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.EnvVarSource"}]}}},
"io.k8s.api.core.v1.EnvVarSource": {"type": "object", "properties": {
  "configMapKeyRef": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.ConfigMapKeySelector"}]}}},
"io.k8s.api.core.v1.ConfigMapKeySelector": {"type": "object", "x-kubernetes-map-type": "atomic", "properties": {
  "key": {"type": "string", "default": ""}, "name": {"type": "string"}, "optional": {"type": "boolean"}}},
"io.k8s.api.core.v1.LocalObjectReference": {"type": "object", "x-kubernetes-map-type": "atomic", "properties": {
  "name": {"type": "string"}}},
"io.k8s.api.core.v1.ResourceRequirements": {"type": "object", "properties": {
  "limits": {"type": "object", "additionalProperties": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"}], "default": {}}},
  "requests": {"type": "object", "additionalProperties": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"}], "default": {}}}}},
"io.k8s.api.core.v1.Toleration": {"type": "object", "properties": {
  "effect": {"type": "string"}, "key": {"type": "string"}, "operator": {"type": "string"}, "value": {"type": "string"}}},
"io.k8s.api.core.v1.Volume": {"type": "object", "required": ["name"], "properties": {
  "configMap": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.ConfigMapVolumeSource"}]},
  "emptyDir": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.EmptyDirVolumeSource"}]},
  "name": {"type": "string", "default": ""}}},
"io.k8s.api.core.v1.ConfigMapVolumeSource": {"type": "object", "properties": {
  "defaultMode": {"type": "integer", "format": "int32"}, "name": {"type": "string"}, "optional": {"type": "boolean"}}},
"io.k8s.api.core.v1.EmptyDirVolumeSource": {"type": "object", "properties": {
  "medium": {"type": "string"},
  "sizeLimit": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"}]}}},
"io.k8s.api.core.v1.VolumeMount": {"type": "object", "required": ["name", "mountPath"], "properties": {
  "mountPath": {"type": "string", "default": ""}, "name": {"type": "string", "default": ""}, "readOnly": {"type": "boolean"}}},
"io.k8s.api.core.v1.ConfigMap": {"type": "object", "properties": {
  "apiVersion": {"type": "string"},
  "binaryData": {"type": "object", "additionalProperties": {"type": "string", "format": "byte"}},
  "data": {"type": "object", "additionalProperties": {"type": "string", "default": ""}},
  "immutable": {"type": "boolean"}, "kind": {"type": "string"},
  "metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}}}}
}}})json";

// The MergeItem test type of upstream's strategicpatch tests: one field per strategy.
inline constexpr const char* kMergeItemComponents = R"json({"components": {"schemas": {
"mergeItem": {"type": "object", "properties": {
  "name": {"type": "string"}, "value": {"type": "string"}, "other": {"type": "string"},
  "mergingList": {"type": "array", "items": {"$ref": "#/components/schemas/mergeItem"}, "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"},
  "nonMergingList": {"type": "array", "items": {"$ref": "#/components/schemas/mergeItem"}},
  "mergingIntList": {"type": "array", "items": {"type": "integer", "format": "int32"}, "x-kubernetes-patch-strategy": "merge"},
  "nonMergingIntList": {"type": "array", "items": {"type": "integer", "format": "int32"}},
  "simpleMap": {"type": "object", "additionalProperties": {"type": "string"}},
  "replacingItem": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.runtime.RawExtension"}], "x-kubernetes-patch-strategy": "replace"},
  "retainKeysMap": {"allOf": [{"$ref": "#/components/schemas/retainKeysMergeItem"}], "x-kubernetes-patch-strategy": "retainKeys"},
  "retainKeysMergingList": {"type": "array", "items": {"$ref": "#/components/schemas/mergeItem"}, "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge,retainKeys"}}},
"retainKeysMergeItem": {"type": "object", "properties": {
  "name": {"type": "string"}, "value": {"type": "string"}, "other": {"type": "string"},
  "simpleMap": {"type": "object", "additionalProperties": {"type": "string"}},
  "mergingIntList": {"type": "array", "items": {"type": "integer", "format": "int32"}, "x-kubernetes-patch-strategy": "merge"},
  "mergingList": {"type": "array", "items": {"$ref": "#/components/schemas/mergeItem"}, "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"},
  "nonMergingList": {"type": "array", "items": {"$ref": "#/components/schemas/mergeItem"}}}},
"io.k8s.apimachinery.pkg.runtime.RawExtension": {"type": "object"}
}}})json";

}  // namespace patch_test
