// meta/v1 messages (k8s.io/apimachinery/pkg/apis/meta/v1): ObjectMeta and what it embeds, and
// the selector requirements the authorization API reuses.

#include "pkg/genericserver/apimachinery/protobuf/tables.h"

namespace apimachinery::protobuf::tables {
namespace {

// OwnerReference: apiVersion, kind, name and uid have no omitempty; controller and
// blockOwnerDeletion are *bool.
constexpr FieldSpec kOwnerReferenceFields[] = {
    Field(5, "apiVersion", Kind::kString, Emit::kAlways),
    Field(1, "kind", Kind::kString, Emit::kAlways),
    Field(3, "name", Kind::kString, Emit::kAlways),
    Field(4, "uid", Kind::kString, Emit::kAlways),
    Field(6, "controller", Kind::kBool, Emit::kPointer),
    Field(7, "blockOwnerDeletion", Kind::kBool, Emit::kPointer),
};

// ManagedFieldsEntry: time is *Time, fieldsV1 is *FieldsV1; the rest omitempty.
constexpr FieldSpec kManagedFieldsEntryFields[] = {
    Field(1, "manager", Kind::kString),     Field(2, "operation", Kind::kString),
    Field(3, "apiVersion", Kind::kString),  Field(4, "time", Kind::kTime, Emit::kPointer),
    Field(6, "fieldsType", Kind::kString),  Field(7, "fieldsV1", Kind::kFieldsV1, Emit::kPointer),
    Field(8, "subresource", Kind::kString),
};

// LabelSelectorRequirement and FieldSelectorRequirement: key and operator have no omitempty.
constexpr FieldSpec kSelectorRequirementFields[] = {
    Field(1, "key", Kind::kString, Emit::kAlways),
    Field(2, "operator", Kind::kString, Emit::kAlways),
    Repeated(3, "values", Kind::kString),
};

}  // namespace

constinit const MessageSpec kOwnerReference{"OwnerReference", kOwnerReferenceFields};
constinit const MessageSpec kManagedFieldsEntry{"ManagedFieldsEntry", kManagedFieldsEntryFields};
constinit const MessageSpec kLabelSelectorRequirement{"LabelSelectorRequirement",
                                                      kSelectorRequirementFields};
constinit const MessageSpec kFieldSelectorRequirement{"FieldSelectorRequirement",
                                                      kSelectorRequirementFields};

namespace {

// ObjectMeta: every string and generation omitempty; creationTimestamp is a Time struct
// (written as null when zero); deletionTimestamp and deletionGracePeriodSeconds are pointers.
// 15 (clusterName) was removed upstream and is skipped like any unknown field.
constexpr FieldSpec kObjectMetaFields[] = {
    Field(1, "name", Kind::kString),
    Field(2, "generateName", Kind::kString),
    Field(3, "namespace", Kind::kString),
    Field(4, "selfLink", Kind::kString),
    Field(5, "uid", Kind::kString),
    Field(6, "resourceVersion", Kind::kString),
    Field(7, "generation", Kind::kInt64),
    Field(8, "creationTimestamp", Kind::kTime, Emit::kAlways),
    Field(9, "deletionTimestamp", Kind::kTime, Emit::kPointer),
    Field(10, "deletionGracePeriodSeconds", Kind::kInt64, Emit::kPointer),
    Map(11, "labels", Kind::kString),
    Map(12, "annotations", Kind::kString),
    RepeatedMessage(13, "ownerReferences", kOwnerReference),
    Repeated(14, "finalizers", Kind::kString),
    RepeatedMessage(17, "managedFields", kManagedFieldsEntry),
};

}  // namespace

constinit const MessageSpec kObjectMeta{"ObjectMeta", kObjectMetaFields};

}  // namespace apimachinery::protobuf::tables
