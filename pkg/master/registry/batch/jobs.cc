// batch/v1 jobs: defaults as upstream (one completion, parallelism 1, backoffLimit 6,
// NonIndexed, not suspended), the generated selector and pod labels, the job's labels
// taken from its template, and a template that does not change after creation.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/apimachinery/validation/names.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/apps/workload.h"
#include "pkg/master/registry/batch/job_template.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/core/pod_defaults.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

constexpr char kControllerUID[] = "batch.kubernetes.io/controller-uid";

void Default(json& job) {
  json& spec = Child(job, "spec");
  DefaultJobSpec(spec);
  // The job's labels default to its template's.
  const json& template_labels =
      Sub(Sub(Sub(job, "spec"), "template"), "metadata").value("labels", json());
  json& meta = Child(job, "metadata");
  if (template_labels.is_object() && !template_labels.empty() &&
      (!meta.contains("labels") || !meta["labels"].is_object() || meta["labels"].empty())) {
    meta["labels"] = template_labels;
  }
}

// Unless spec.manualSelector: the pods are labelled with the job's uid and name, and the
// selector picks the uid.
void GenerateSelector(json& job) {
  json& spec = Child(job, "spec");
  if (spec.value("manualSelector", false) == true) return;
  const std::string uid = registry::MetaString(job, "uid");
  const std::string name = registry::MetaString(job, "name");
  json& labels = Child(Child(Child(spec, "template"), "metadata"), "labels");
  labels[kControllerUID] = uid;
  labels["batch.kubernetes.io/job-name"] = name;
  labels["controller-uid"] = uid;
  labels["job-name"] = name;
  if (!spec.contains("selector") || spec["selector"].is_null()) {
    spec["selector"] = {{"matchLabels", {{kControllerUID, uid}}}};
  }
}

registry::FieldErrors Validate(const json& job) {
  registry::FieldErrors errors;
  const json& spec = Sub(job, "spec");
  // An indexed job's pods are named "<job>-<index>": the last one must be a DNS label.
  if (Str(spec, "completionMode") == "Indexed" && spec.contains("completions") &&
      spec["completions"].is_number_integer() && spec["completions"].get<int64_t>() > 0) {
    const std::string name = registry::MetaString(job, "name");
    const std::string last = name + "-" + std::to_string(spec["completions"].get<int64_t>() - 1);
    if (!v::IsDNS1123Label(last).empty()) {
      errors.push_back(v::FieldInvalid(
          "metadata.name", name, "will not able to create pod with invalid DNS label: " + last));
    }
  }
  ValidateJobSpec(spec, "spec", errors);
  ValidateSelector(job, "job", errors);
  if (spec.value("manualSelector", false) != true && spec.contains("selector") &&
      Str(Sub(spec["selector"], "matchLabels"), kControllerUID) !=
          registry::MetaString(job, "uid")) {
    errors.push_back(v::FieldInvalid("spec.selector", GoLabelSelector(spec["selector"]),
                                     "`selector` not auto-generated"));
    errors.back().value_form = v::ValueForm::kVerbatim;
  }
  return errors;
}

registry::FieldErrors ValidateUpdate(const json& job, const json& old) {
  registry::FieldErrors errors = SelectorUnchanged(job, old);
  if (Sub(job, "spec").value("template", json()) != Sub(old, "spec").value("template", json())) {
    errors.push_back(v::FieldInvalid("spec.template", "", "field is immutable"));
    errors.back().value_form = v::ValueForm::kOmitted;
  }
  for (const char* field : {"completions", "completionMode"}) {
    if (Sub(job, "spec").value(field, json()) != Sub(old, "spec").value(field, json())) {
      errors.push_back(v::FieldInvalid(std::string("spec.") + field,
                                       Sub(job, "spec").value(field, json()).dump(),
                                       "field is immutable"));
      errors.back().value_form = v::ValueForm::kVerbatim;
    }
  }
  return errors;
}

bool HasCondition(const json& status, const char* type) {
  for (const json& c : List(status, "conditions")) {
    if (Str(c, "type") == type && Str(c, "status") == "True") return true;
  }
  return false;
}

std::string JobStatus(const json& job) {
  const json& status = Sub(job, "status");
  if (HasCondition(status, "Complete")) return "Complete";
  if (HasCondition(status, "Failed")) return "Failed";
  if (!registry::MetaString(job, "deletionTimestamp").empty()) return "Terminating";
  if (HasCondition(status, "FailureTarget")) return "FailureTarget";
  if (HasCondition(status, "SuccessCriteriaMet")) return "SuccessCriteriaMet";
  if (HasCondition(status, "Suspended")) return "Suspended";
  return "Running";
}

std::string Completions(const json& job) {
  const json& spec = Sub(job, "spec");
  const std::string succeeded = std::to_string(Int(Sub(job, "status"), "succeeded"));
  if (spec.contains("completions") && spec["completions"].is_number_integer()) {
    return succeeded + "/" + std::to_string(Int(spec, "completions"));
  }
  const int64_t parallelism = Int(spec, "parallelism");
  if (parallelism > 1) return succeeded + "/1 of " + std::to_string(parallelism);
  return succeeded + "/1";
}

std::string Duration(const json& job, std::chrono::system_clock::time_point now) {
  const json& status = Sub(job, "status");
  auto start = registry::ParseTime(Str(status, "startTime"));
  if (!start) return "";
  auto end = registry::ParseTime(Str(status, "completionTime"));
  return registry::HumanDuration((end ? *end : now) - *start);
}

}  // namespace

registry::ResourceSpecPtr Jobs() {
  KindHooks hooks;
  hooks.defaults = Default;
  hooks.prepare_create = [](json& job) {
    GenerateSelector(job);
    Default(job);
    job["status"] = json::object();
  };
  hooks.validate = Validate;
  hooks.validate_update = ValidateUpdate;
  hooks.generation = true;
  auto spec = Builtin("batch/v1", "jobs", std::move(hooks));
  spec->categories = {"all"};
  spec->columns = {
      registry::NameColumn(),
      {"Status", "string", "", "Running, Complete, Failed, Suspended or Terminating.", 0},
      {"Completions", "string", "", "Succeeded pods out of the completions wanted.", 0},
      {"Duration", "string", "", "How long the job ran, or has been running.", 0},
      registry::AgeColumn(),
  };
  for (auto& c : TemplateColumns()) spec->columns.push_back(std::move(c));
  spec->row = [](const json& job, std::chrono::system_clock::time_point now) {
    const json& s = Sub(job, "spec");
    std::vector<json> row{registry::MetaString(job, "name"), JobStatus(job), Completions(job),
                          Duration(job, now), registry::Age(job, now)};
    AppendTemplateCells(Sub(s, "template"), s.value("selector", json()), row);
    return row;
  };
  spec->fields["status.successful"] = [](const json& job) {
    return std::to_string(Int(Sub(job, "status"), "succeeded"));
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
