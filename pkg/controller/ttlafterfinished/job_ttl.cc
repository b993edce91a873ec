#include "pkg/controller/ttlafterfinished/job_ttl.h"

#include <nlohmann/json.hpp>

#include "pkg/controller/object.h"

namespace controller::ttlafterfinished {

using nlohmann::json;

namespace {

bool IsFinishedCondition(const json& c) {
  const std::string type = Str(c, "type");
  return (type == "Complete" || type == "Failed") && Str(c, "status") == "True";
}

const json& Conditions(const json& job) { return Field(Field(job, "status"), "conditions"); }

std::string JobName(const json& job) { return Meta(job, "namespace") + "/" + Meta(job, "name"); }

}  // namespace

bool IsJobFinished(const json& job) {
  const json& conditions = Conditions(job);
  if (!conditions.is_array()) return false;
  for (const json& c : conditions) {
    if (IsFinishedCondition(c)) return true;
  }
  return false;
}

bool NeedsCleanup(const json& job) {
  return Field(Field(job, "spec"), "ttlSecondsAfterFinished").is_number_integer() &&
         IsJobFinished(job);
}

std::expected<Time, std::string> JobFinishTime(const json& job) {
  const json& conditions = Conditions(job);
  if (conditions.is_array()) {
    for (const json& c : conditions) {
      if (!IsFinishedCondition(c)) continue;
      std::optional<Time> at = util::ParseRFC3339(Str(c, "lastTransitionTime"));
      if (!at) {
        return std::unexpected("unable to find the time when the Job " + JobName(job) +
                               " finished");
      }
      return *at;
    }
  }
  return std::unexpected("unable to find the status of the finished Job " + JobName(job));
}

std::expected<TTLDecision, std::string> EvaluateTTL(const json& job, Time now) {
  TTLDecision d;
  if (Field(Field(job, "metadata"), "deletionTimestamp").is_string() || !NeedsCleanup(job)) {
    return d;
  }
  std::expected<Time, std::string> finished = JobFinishTime(job);
  if (!finished) return std::unexpected(finished.error());
  const int64_t ttl = Field(Field(job, "spec"), "ttlSecondsAfterFinished").get<int64_t>();
  d.finish_at = *finished;
  d.expire_at = d.finish_at + std::chrono::seconds(ttl);
  d.finished_in_future = d.finish_at > now;
  d.remaining = d.expire_at - now;
  d.kind = d.remaining.count() <= 0 ? TTLDecision::kExpired : TTLDecision::kWait;
  return d;
}

}  // namespace controller::ttlafterfinished
