#pragma once
// The Pod Security Standards checks of 1.32 (k8s.io/pod-security-admission/policy): what a
// pod's metadata and spec break at a level and version, as upstream's reasons and details
// ("privileged (container "app" must not set securityContext.privileged=true)"). The
// restricted level runs the baseline checks too, except those a restricted check replaces
// (capabilities, hostPath volumes, seccomp). Pure functions.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/plugin/admission/pod_security/levels.h"

namespace plugin::admission::pod_security {

struct Violation {
  std::string reason;
  std::string detail;
};

// What the pod (its metadata and spec) breaks, in upstream's order of checks; none for
// privileged.
std::vector<Violation> Check(const LevelVersion& level, const nlohmann::json& metadata,
                             const nlohmann::json& spec);

// "reason (detail), reason (detail)", as upstream's messages list them.
std::string Describe(const std::vector<Violation>& violations);

}  // namespace plugin::admission::pod_security
