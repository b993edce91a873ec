#pragma once
// The ValidatingAdmissionPolicy plugin, as upstream's policy/validating: every
// ValidatingAdmissionPolicyBinding (by name) whose policy exists and whose policy's
// matchConstraints and own matchResources match the request (namespace and object
// selectors, resourceRules with resourceNames, excludeResourceRules) has its policy
// evaluated, once per parameter (paramRef by name or selector, in the request's namespace
// unless it names one; parameterNotFoundAction), with CEL's `object`, `oldObject`,
// `request`, `params`, `namespaceObject` and `variables`. The policy's matchConditions
// choose whether it applies; each failing validation (or, with failurePolicy Fail, an
// expression that errs or a configuration that does not work) is a decision the binding's
// validationActions turn into a refusal (Deny: the first is the answer, "<resource>
// "<name>" is forbidden: ValidatingAdmissionPolicy '<p>' with binding '<b>' denied request:
// <message>", code by its reason, 422 for Invalid, the default), a Warning header (Warn) or
// the audit annotation validation.policy.admission.k8s.io/validation_failure (Audit). The
// policy's auditAnnotations become "<policy>/<key>" annotations of the audit event.
//
// What differs from upstream: no `authorizer` variable, no status.typeChecking; the object
// is in the version written (matchPolicy Equivalent matches every version).
//
// Thread-safe: the policies and bindings are read from the watch cache on each call; each
// policy's compiled expressions are cached per resourceVersion under a mutex.

#include <memory>

#include "pkg/genericserver/admission/plugin.h"
#include "pkg/genericserver/admission/stores.h"

namespace admission::policy {

PluginPtr NewValidatingAdmissionPolicy(std::shared_ptr<const Stores> stores);

}  // namespace admission::policy
