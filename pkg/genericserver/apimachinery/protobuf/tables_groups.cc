// Messages of coordination.k8s.io/v1 (Lease), authorization.k8s.io/v1 (the access and rules
// reviews) and authentication.k8s.io/v1 (TokenReview, SelfSubjectReview, TokenRequest).

#include "pkg/genericserver/apimachinery/protobuf/tables.h"

namespace apimachinery::protobuf::tables {
namespace {

// --- coordination.k8s.io/v1 ---

// LeaseSpec: every field is a pointer with omitempty.
constexpr FieldSpec kLeaseSpecFields[] = {
    Field(1, "holderIdentity", Kind::kString, Emit::kPointer),
    Field(2, "leaseDurationSeconds", Kind::kInt32, Emit::kPointer),
    Field(3, "acquireTime", Kind::kMicroTime, Emit::kPointer),
    Field(4, "renewTime", Kind::kMicroTime, Emit::kPointer),
    Field(5, "leaseTransitions", Kind::kInt32, Emit::kPointer),
    Field(6, "strategy", Kind::kString, Emit::kPointer),
    Field(7, "preferredHolder", Kind::kString, Emit::kPointer),
};
constinit const MessageSpec kLeaseSpec{"LeaseSpec", kLeaseSpecFields};

constexpr FieldSpec kLeaseFields[] = {
    Message(1, "metadata", kObjectMeta),
    Message(2, "spec", kLeaseSpec),
};

// --- authorization.k8s.io/v1 ---

constexpr FieldSpec kFieldSelectorAttributesFields[] = {
    Field(1, "rawSelector", Kind::kString),
    RepeatedMessage(2, "requirements", kFieldSelectorRequirement),
};
constinit const MessageSpec kFieldSelectorAttributes{"FieldSelectorAttributes",
                                                     kFieldSelectorAttributesFields};

constexpr FieldSpec kLabelSelectorAttributesFields[] = {
    Field(1, "rawSelector", Kind::kString),
    RepeatedMessage(2, "requirements", kLabelSelectorRequirement),
};
constinit const MessageSpec kLabelSelectorAttributes{"LabelSelectorAttributes",
                                                     kLabelSelectorAttributesFields};

constexpr FieldSpec kResourceAttributesFields[] = {
    Field(1, "namespace", Kind::kString),
    Field(2, "verb", Kind::kString),
    Field(3, "group", Kind::kString),
    Field(4, "version", Kind::kString),
    Field(5, "resource", Kind::kString),
    Field(6, "subresource", Kind::kString),
    Field(7, "name", Kind::kString),
    Message(8, "fieldSelector", kFieldSelectorAttributes, Emit::kPointer),
    Message(9, "labelSelector", kLabelSelectorAttributes, Emit::kPointer),
};
constinit const MessageSpec kResourceAttributes{"ResourceAttributes", kResourceAttributesFields};

constexpr FieldSpec kNonResourceAttributesFields[] = {
    Field(1, "path", Kind::kString),
    Field(2, "verb", Kind::kString),
};
constinit const MessageSpec kNonResourceAttributes{"NonResourceAttributes",
                                                   kNonResourceAttributesFields};

// SubjectAccessReviewSpec: extra is map<string, ExtraValue> (ExtraValue wraps []string).
constexpr FieldSpec kSubjectAccessReviewSpecFields[] = {
    Message(1, "resourceAttributes", kResourceAttributes, Emit::kPointer),
    Message(2, "nonResourceAttributes", kNonResourceAttributes, Emit::kPointer),
    Field(3, "user", Kind::kString),
    Repeated(4, "groups", Kind::kString),
    Map(5, "extra", Kind::kStringList),
    Field(6, "uid", Kind::kString),
};
constinit const MessageSpec kSubjectAccessReviewSpec{"SubjectAccessReviewSpec",
                                                     kSubjectAccessReviewSpecFields};

constexpr FieldSpec kSelfSubjectAccessReviewSpecFields[] = {
    Message(1, "resourceAttributes", kResourceAttributes, Emit::kPointer),
    Message(2, "nonResourceAttributes", kNonResourceAttributes, Emit::kPointer),
};
constinit const MessageSpec kSelfSubjectAccessReviewSpec{"SelfSubjectAccessReviewSpec",
                                                         kSelfSubjectAccessReviewSpecFields};

// SubjectAccessReviewStatus: allowed has no omitempty.
constexpr FieldSpec kSubjectAccessReviewStatusFields[] = {
    Field(1, "allowed", Kind::kBool, Emit::kAlways),
    Field(2, "reason", Kind::kString),
    Field(3, "evaluationError", Kind::kString),
    Field(4, "denied", Kind::kBool),
};
constinit const MessageSpec kSubjectAccessReviewStatus{"SubjectAccessReviewStatus",
                                                       kSubjectAccessReviewStatusFields};

constexpr FieldSpec kSubjectAccessReviewFields[] = {
    Message(1, "metadata", kObjectMeta),
    Message(2, "spec", kSubjectAccessReviewSpec),
    Message(3, "status", kSubjectAccessReviewStatus),
};

constexpr FieldSpec kSelfSubjectAccessReviewFields[] = {
    Message(1, "metadata", kObjectMeta),
    Message(2, "spec", kSelfSubjectAccessReviewSpec),
    Message(3, "status", kSubjectAccessReviewStatus),
};

constexpr FieldSpec kSelfSubjectRulesReviewSpecFields[] = {
    Field(1, "namespace", Kind::kString),
};
constinit const MessageSpec kSelfSubjectRulesReviewSpec{"SelfSubjectRulesReviewSpec",
                                                        kSelfSubjectRulesReviewSpecFields};

// ResourceRule and NonResourceRule: verbs has no omitempty (null when empty).
constexpr FieldSpec kResourceRuleFields[] = {
    Repeated(1, "verbs", Kind::kString, Emit::kAlways),
    Repeated(2, "apiGroups", Kind::kString),
    Repeated(3, "resources", Kind::kString),
    Repeated(4, "resourceNames", Kind::kString),
};
constinit const MessageSpec kResourceRule{"ResourceRule", kResourceRuleFields};

constexpr FieldSpec kNonResourceRuleFields[] = {
    Repeated(1, "verbs", Kind::kString, Emit::kAlways),
    Repeated(2, "nonResourceURLs", Kind::kString),
};
constinit const MessageSpec kNonResourceRule{"NonResourceRule", kNonResourceRuleFields};

// SubjectRulesReviewStatus: resourceRules, nonResourceRules and incomplete have no omitempty.
constexpr FieldSpec kSubjectRulesReviewStatusFields[] = {
    RepeatedMessage(1, "resourceRules", kResourceRule, Emit::kAlways),
    RepeatedMessage(2, "nonResourceRules", kNonResourceRule, Emit::kAlways),
    Field(3, "incomplete", Kind::kBool, Emit::kAlways),
    Field(4, "evaluationError", Kind::kString),
};
constinit const MessageSpec kSubjectRulesReviewStatus{"SubjectRulesReviewStatus",
                                                      kSubjectRulesReviewStatusFields};

constexpr FieldSpec kSelfSubjectRulesReviewFields[] = {
    Message(1, "metadata", kObjectMeta),
    Message(2, "spec", kSelfSubjectRulesReviewSpec),
    Message(3, "status", kSubjectRulesReviewStatus),
};

// --- authentication.k8s.io/v1 ---

constexpr FieldSpec kUserInfoFields[] = {
    Field(1, "username", Kind::kString),
    Field(2, "uid", Kind::kString),
    Repeated(3, "groups", Kind::kString),
    Map(4, "extra", Kind::kStringList),
};
constinit const MessageSpec kUserInfo{"UserInfo", kUserInfoFields};

constexpr FieldSpec kTokenReviewSpecFields[] = {
    Field(1, "token", Kind::kString),
    Repeated(2, "audiences", Kind::kString),
};
constinit const MessageSpec kTokenReviewSpec{"TokenReviewSpec", kTokenReviewSpecFields};

// TokenReviewStatus: user is a struct.
constexpr FieldSpec kTokenReviewStatusFields[] = {
    Field(1, "authenticated", Kind::kBool),
    Message(2, "user", kUserInfo),
    Field(3, "error", Kind::kString),
    Repeated(4, "audiences", Kind::kString),
};
constinit const MessageSpec kTokenReviewStatus{"TokenReviewStatus", kTokenReviewStatusFields};

constexpr FieldSpec kTokenReviewFields[] = {
    Message(1, "metadata", kObjectMeta),
    Message(2, "spec", kTokenReviewSpec),
    Message(3, "status", kTokenReviewStatus),
};

constexpr FieldSpec kSelfSubjectReviewStatusFields[] = {
    Message(1, "userInfo", kUserInfo),
};
constinit const MessageSpec kSelfSubjectReviewStatus{"SelfSubjectReviewStatus",
                                                     kSelfSubjectReviewStatusFields};

constexpr FieldSpec kSelfSubjectReviewFields[] = {
    Message(1, "metadata", kObjectMeta),
    Message(2, "status", kSelfSubjectReviewStatus),
};

// TokenRequest (kubectl create token): the spec's fields have no omitempty, so the absent
// pointers are null and the absent audiences too; the status's token and expirationTimestamp
// are always written.
constexpr FieldSpec kBoundObjectReferenceFields[] = {
    Field(1, "kind", Kind::kString),
    Field(2, "apiVersion", Kind::kString),
    Field(3, "name", Kind::kString),
    Field(4, "uid", Kind::kString),
};
constinit const MessageSpec kBoundObjectReference{"BoundObjectReference",
                                                  kBoundObjectReferenceFields};

constexpr FieldSpec kTokenRequestSpecFields[] = {
    Repeated(1, "audiences", Kind::kString, Emit::kAlways),
    Message(3, "boundObjectRef", kBoundObjectReference, Emit::kNullablePointer),
    Field(4, "expirationSeconds", Kind::kInt64, Emit::kNullablePointer),
};
constinit const MessageSpec kTokenRequestSpec{"TokenRequestSpec", kTokenRequestSpecFields};

constexpr FieldSpec kTokenRequestStatusFields[] = {
    Field(1, "token", Kind::kString, Emit::kAlways),
    Field(2, "expirationTimestamp", Kind::kTime, Emit::kAlways),
};
constinit const MessageSpec kTokenRequestStatus{"TokenRequestStatus", kTokenRequestStatusFields};

constexpr FieldSpec kTokenRequestFields[] = {
    Message(1, "metadata", kObjectMeta),
    Message(2, "spec", kTokenRequestSpec),
    Message(3, "status", kTokenRequestStatus),
};

}  // namespace

constinit const MessageSpec kLease{"Lease", kLeaseFields};
constinit const MessageSpec kSubjectAccessReview{"SubjectAccessReview", kSubjectAccessReviewFields};
constinit const MessageSpec kSelfSubjectAccessReview{"SelfSubjectAccessReview",
                                                     kSelfSubjectAccessReviewFields};
constinit const MessageSpec kSelfSubjectRulesReview{"SelfSubjectRulesReview",
                                                    kSelfSubjectRulesReviewFields};
constinit const MessageSpec kTokenReview{"TokenReview", kTokenReviewFields};
constinit const MessageSpec kSelfSubjectReview{"SelfSubjectReview", kSelfSubjectReviewFields};
constinit const MessageSpec kTokenRequest{"TokenRequest", kTokenRequestFields};

}  // namespace apimachinery::protobuf::tables
