#include "pkg/master/registry/batch/job_template.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/master/registry/core/pod_defaults.h"
#include "pkg/master/registry/core/pod_validation.h"
#include "pkg/master/registry/fields.h"

namespace master::resources {

using nlohmann::json;
namespace v = apimachinery::validation;

void DefaultJobSpec(json& spec) {
  const bool has_completions = spec.contains("completions") && !spec["completions"].is_null();
  if (!has_completions && (!spec.contains("parallelism") || spec["parallelism"].is_null())) {
    spec["completions"] = 1;
  }
  SetDefault(spec, "parallelism", 1);
  const bool per_index =
      spec.contains("backoffLimitPerIndex") && !spec["backoffLimitPerIndex"].is_null();
  SetDefault(spec, "backoffLimit", per_index ? 2147483647 : 6);
  SetDefault(spec, "completionMode", "NonIndexed");
  SetDefault(spec, "suspend", false);
  const bool failure_policy =
      spec.contains("podFailurePolicy") && !spec["podFailurePolicy"].is_null();
  SetDefault(spec, "podReplacementPolicy", failure_policy ? "Failed" : "TerminatingOrFailed");
  DefaultPodTemplate(Child(spec, "template"));
}

void ValidateJobSpec(const json& spec, const std::string& path, registry::FieldErrors& errors) {
  for (const char* field : {"parallelism", "completions", "backoffLimit", "activeDeadlineSeconds",
                            "ttlSecondsAfterFinished"}) {
    auto it = spec.find(field);
    if (it != spec.end() && it->is_number_integer() && it->get<int64_t>() < 0) {
      errors.push_back(
          v::FieldInvalid(path + "." + field, it->dump(), "must be greater than or equal to 0"));
      errors.back().value_form = v::ValueForm::kVerbatim;
    }
  }
  const json& pod = Sub(Sub(spec, "template"), "spec");
  ValidatePodSpec(pod, path + ".template.spec", errors);
  const std::string policy = Str(pod, "restartPolicy");
  if (policy != "OnFailure" && policy != "Never") {
    errors.push_back(v::FieldNotSupported(path + ".template.spec.restartPolicy", policy,
                                          {"OnFailure", "Never"}));
  }
  const std::string mode = Str(spec, "completionMode");
  if (!mode.empty() && mode != "NonIndexed" && mode != "Indexed") {
    errors.push_back(
        v::FieldNotSupported(path + ".completionMode", mode, {"NonIndexed", "Indexed"}));
  }
}

}  // namespace master::resources
