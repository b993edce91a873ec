// batch/v1 cron jobs: a job template run on a schedule; Allow concurrency, not suspended
// and 3 / 1 finished jobs kept by default.
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

void Default(json& cj) {
  json& spec = Child(cj, "spec");
  SetDefault(spec, "concurrencyPolicy", "Allow");
  SetDefault(spec, "suspend", false);
  SetDefault(spec, "successfulJobsHistoryLimit", 3);
  SetDefault(spec, "failedJobsHistoryLimit", 1);
  json& job_template = Child(spec, "jobTemplate");
  json& meta = Child(job_template, "metadata");
  if (!meta.contains("creationTimestamp")) meta["creationTimestamp"] = nullptr;
  DefaultPodTemplate(Child(Child(job_template, "spec"), "template"));
}

registry::FieldErrors Validate(const json& cj) {
  registry::FieldErrors errors;
  // The job controller names jobs "<cronjob>-<11 characters>", which must be a DNS-1035 label.
  const std::string name = registry::MetaString(cj, "name");
  if (name.size() > v::kDNS1035LabelMaxLength - 11) {
    errors.push_back(v::FieldInvalid("metadata.name", name, "must be no more than 52 characters"));
  }
  const json& spec = Sub(cj, "spec");
  if (Str(spec, "schedule").empty()) errors.push_back(v::FieldRequired("spec.schedule", ""));
  const std::string policy = Str(spec, "concurrencyPolicy");
  if (policy != "Allow" && policy != "Forbid" && policy != "Replace") {
    errors.push_back(
        v::FieldNotSupported("spec.concurrencyPolicy", policy, {"Allow", "Forbid", "Replace"}));
  }
  ValidateNonNegative(
      cj, {"startingDeadlineSeconds", "successfulJobsHistoryLimit", "failedJobsHistoryLimit"},
      errors);
  ValidateJobSpec(Sub(Sub(spec, "jobTemplate"), "spec"), "spec.jobTemplate.spec", errors);
  return errors;
}

}  // namespace

registry::ResourceSpecPtr CronJobs() {
  KindHooks hooks;
  hooks.defaults = Default;
  hooks.prepare_create = [](json& cj) { cj["status"] = json::object(); };
  hooks.validate = Validate;
  hooks.generation = true;
  auto spec = Builtin("batch/v1", "cronjobs", std::move(hooks));
  spec->short_names = {"cj"};
  spec->categories = {"all"};
  spec->columns = {
      registry::NameColumn(),
      {"Schedule", "string", "", "When jobs run, in cron format.", 0},
      {"Timezone", "string", "", "The time zone of the schedule.", 0},
      {"Suspend", "boolean", "", "Whether new runs are held back.", 0},
      {"Active", "integer", "", "Jobs running now.", 0},
      {"Last Schedule", "date", "", "How long ago a job was last started.", 0},
      registry::AgeColumn(),
  };
  for (auto& c : TemplateColumns()) spec->columns.push_back(std::move(c));
  spec->row = [](const json& cj, std::chrono::system_clock::time_point now) {
    const json& s = Sub(cj, "spec");
    const json& status = Sub(cj, "status");
    std::string suspend = "<unset>";
    if (s.contains("suspend") && s["suspend"].is_boolean()) {
      suspend = s["suspend"].get<bool>() ? "True" : "False";
    }
    std::string last = "<none>";
    if (auto t = registry::ParseTime(Str(status, "lastScheduleTime"))) {
      last = registry::HumanDuration(now - *t);
    }
    const std::string zone = Str(s, "timeZone");
    std::vector<json> row{registry::MetaString(cj, "name"),
                          Str(s, "schedule"),
                          zone.empty() ? "<none>" : zone,
                          suspend,
                          static_cast<int64_t>(List(status, "active").size()),
                          last,
                          registry::Age(cj, now)};
    const json& job_spec = Sub(Sub(s, "jobTemplate"), "spec");
    AppendTemplateCells(Sub(job_spec, "template"), job_spec.value("selector", json()), row);
    return row;
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
