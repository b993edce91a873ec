#pragma once
// The message tables (internal to apimachinery/protobuf). Field numbers and JSON tags follow
// k8s.io/api and k8s.io/apimachinery at API level 1.32.

#include "pkg/genericserver/apimachinery/protobuf/message_spec.h"

namespace apimachinery::protobuf::tables {

// meta/v1 (tables_meta.cc)
extern const MessageSpec kObjectMeta;
extern const MessageSpec kOwnerReference;
extern const MessageSpec kManagedFieldsEntry;
extern const MessageSpec kLabelSelectorRequirement;
extern const MessageSpec kFieldSelectorRequirement;

// core/v1 (tables_core.cc)
extern const MessageSpec kNamespace;
extern const MessageSpec kConfigMap;
extern const MessageSpec kSecret;
extern const MessageSpec kServiceAccount;
extern const MessageSpec kEvent;
extern const MessageSpec kObjectReference;

// coordination.k8s.io/v1, authorization.k8s.io/v1, authentication.k8s.io/v1 (tables_groups.cc)
extern const MessageSpec kLease;
extern const MessageSpec kSubjectAccessReview;
extern const MessageSpec kSelfSubjectAccessReview;
extern const MessageSpec kSelfSubjectRulesReview;
extern const MessageSpec kTokenReview;
extern const MessageSpec kSelfSubjectReview;
extern const MessageSpec kTokenRequest;

}  // namespace apimachinery::protobuf::tables
