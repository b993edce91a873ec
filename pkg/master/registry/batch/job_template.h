#pragma once
// A job spec's defaults and rules, shared by jobs and the job templates of cron jobs.

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/registry/strategy.h"

namespace master::resources {

// The defaults of a Job's spec (completions and parallelism, backoffLimit, completionMode,
// suspend, podReplacementPolicy) and of its pod template.
void DefaultJobSpec(nlohmann::json& spec);

// Non-negative counts, the pod template, restartPolicy OnFailure or Never.
void ValidateJobSpec(const nlohmann::json& spec, const std::string& path,
                     registry::FieldErrors& errors);

}  // namespace master::resources
