// core/v1 messages (k8s.io/api/core/v1): Namespace, ConfigMap, Secret, ServiceAccount, Event.

#include "pkg/genericserver/apimachinery/protobuf/tables.h"

namespace apimachinery::protobuf::tables {
namespace {

// ObjectReference: every field omitempty.
constexpr FieldSpec kObjectReferenceFields[] = {
    Field(1, "kind", Kind::kString),       Field(2, "namespace", Kind::kString),
    Field(3, "name", Kind::kString),       Field(4, "uid", Kind::kString),
    Field(5, "apiVersion", Kind::kString), Field(6, "resourceVersion", Kind::kString),
    Field(7, "fieldPath", Kind::kString),
};

constexpr FieldSpec kLocalObjectReferenceFields[] = {
    Field(1, "name", Kind::kString),
};
constinit const MessageSpec kLocalObjectReference{"LocalObjectReference",
                                                  kLocalObjectReferenceFields};

// Namespace: spec and status are structs (always written, {} when empty).
constexpr FieldSpec kNamespaceSpecFields[] = {
    Repeated(1, "finalizers", Kind::kString),
};
constinit const MessageSpec kNamespaceSpec{"NamespaceSpec", kNamespaceSpecFields};

// NamespaceCondition: type and status have no omitempty.
constexpr FieldSpec kNamespaceConditionFields[] = {
    Field(1, "type", Kind::kString, Emit::kAlways),
    Field(2, "status", Kind::kString, Emit::kAlways),
    Field(4, "lastTransitionTime", Kind::kTime, Emit::kAlways),
    Field(5, "reason", Kind::kString),
    Field(6, "message", Kind::kString),
};
constinit const MessageSpec kNamespaceCondition{"NamespaceCondition", kNamespaceConditionFields};

constexpr FieldSpec kNamespaceStatusFields[] = {
    Field(1, "phase", Kind::kString),
    RepeatedMessage(2, "conditions", kNamespaceCondition),
};
constinit const MessageSpec kNamespaceStatus{"NamespaceStatus", kNamespaceStatusFields};

constexpr FieldSpec kNamespaceFields[] = {
    Message(1, "metadata", kObjectMeta),
    Message(2, "spec", kNamespaceSpec),
    Message(3, "status", kNamespaceStatus),
};

// ConfigMap and Secret: immutable is *bool; Secret data is map<string,bytes> (base64 in JSON).
constexpr FieldSpec kConfigMapFields[] = {
    Message(1, "metadata", kObjectMeta),
    Map(2, "data", Kind::kString),
    Map(3, "binaryData", Kind::kBytes),
    Field(4, "immutable", Kind::kBool, Emit::kPointer),
};

constexpr FieldSpec kSecretFields[] = {
    Message(1, "metadata", kObjectMeta),
    Map(2, "data", Kind::kBytes),
    Field(3, "type", Kind::kString),
    Map(4, "stringData", Kind::kString),
    Field(5, "immutable", Kind::kBool, Emit::kPointer),
};

}  // namespace

constinit const MessageSpec kObjectReference{"ObjectReference", kObjectReferenceFields};

namespace {

constexpr FieldSpec kServiceAccountFields[] = {
    Message(1, "metadata", kObjectMeta),
    RepeatedMessage(2, "secrets", kObjectReference),
    RepeatedMessage(3, "imagePullSecrets", kLocalObjectReference),
    Field(4, "automountServiceAccountToken", Kind::kBool, Emit::kPointer),
};

constexpr FieldSpec kEventSourceFields[] = {
    Field(1, "component", Kind::kString),
    Field(2, "host", Kind::kString),
};
constinit const MessageSpec kEventSource{"EventSource", kEventSourceFields};

// EventSeries: lastObservedTime is a MicroTime struct.
constexpr FieldSpec kEventSeriesFields[] = {
    Field(1, "count", Kind::kInt32),
    Field(2, "lastObservedTime", Kind::kMicroTime, Emit::kAlways),
};
constinit const MessageSpec kEventSeries{"EventSeries", kEventSeriesFields};

// Event: involvedObject and source are structs; the timestamps are structs (null when zero);
// series and related are pointers; reportingComponent and reportingInstance have no omitempty.
constexpr FieldSpec kEventFields[] = {
    Message(1, "metadata", kObjectMeta),
    Message(2, "involvedObject", kObjectReference),
    Field(3, "reason", Kind::kString),
    Field(4, "message", Kind::kString),
    Message(5, "source", kEventSource),
    Field(6, "firstTimestamp", Kind::kTime, Emit::kAlways),
    Field(7, "lastTimestamp", Kind::kTime, Emit::kAlways),
    Field(8, "count", Kind::kInt32),
    Field(9, "type", Kind::kString),
    Field(10, "eventTime", Kind::kMicroTime, Emit::kAlways),
    Message(11, "series", kEventSeries, Emit::kPointer),
    Field(12, "action", Kind::kString),
    Message(13, "related", kObjectReference, Emit::kPointer),
    Field(14, "reportingComponent", Kind::kString, Emit::kAlways),
    Field(15, "reportingInstance", Kind::kString, Emit::kAlways),
};

}  // namespace

constinit const MessageSpec kNamespace{"Namespace", kNamespaceFields};
constinit const MessageSpec kConfigMap{"ConfigMap", kConfigMapFields};
constinit const MessageSpec kSecret{"Secret", kSecretFields};
constinit const MessageSpec kServiceAccount{"ServiceAccount", kServiceAccountFields};
constinit const MessageSpec kEvent{"Event", kEventFields};

}  // namespace apimachinery::protobuf::tables
