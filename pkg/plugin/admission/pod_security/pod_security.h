#pragma once
// The PodSecurity admission plugin (k8s.io/pod-security-admission, validating phase): each
// namespace's labels pod-security.kubernetes.io/{enforce,audit,warn}[-version] (else the
// configured defaults, privileged:latest unless --admission-control-config-file says
// otherwise) choose the levels a pod is held to. A pod created, or updated in a way that
// matters (an image, a container more or less), that breaks the enforce level is refused
// (403 `pods "x" is forbidden: violates PodSecurity "restricted:latest": ...`); one that
// breaks the warn level gets a Warning (`would violate PodSecurity ...`), as do workloads
// whose pod template does (they are never refused). Namespaces with invalid labels are
// refused (422); making a namespace's enforce level stricter warns of its pods that break
// it. The configuration's exemptions (usernames, namespaces, runtimeClasses) skip the checks.
// Audit events get upstream's annotations: pod-security.kubernetes.io/enforce-policy,
// audit-violations (what breaks the audit level) and exempt.
//
// Immutable after construction; reads namespaces and pods through admission::Stores.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/genericserver/admission/plugin.h"
#include "pkg/genericserver/admission/stores.h"
#include "pkg/plugin/admission/pod_security/levels.h"

namespace plugin::admission::pod_security {

// PodSecurityConfiguration (pod-security.admission.config.k8s.io/v1, v1beta1, v1alpha1).
struct Configuration {
  LevelVersion enforce, audit, warn;
  std::vector<std::string> exempt_usernames, exempt_namespaces, exempt_runtime_classes;
};

// Parses the configuration (JSON); the error is what stops the server.
std::expected<Configuration, std::string> ParseConfiguration(const std::string& text);

::admission::PluginPtr NewPodSecurity(std::shared_ptr<const ::admission::Stores> stores,
                                      Configuration configuration = {});

}  // namespace plugin::admission::pod_security
