#include "pkg/controller/ttlafterfinished/job_ttl.h"

#include <nlohmann/json.hpp>

namespace controller::ttlafterfinished {

using nlohmann::json;

namespace {

const json& Field(const json& object, const char* name) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(name);
  return it == object.end() ? kNull : *it;
}

std::string String(const json& object, const char* name) {
  const json& v = Field(object, name);
  return v.is_string() ? v.get<std::string>() : "";
}

bool IsFinishedCondition(const json& c) {
  const std::string type = String(c, "type");
  return (type == "Complete" || type == "Failed") && String(c, "status") == "True";
}

const json& Conditions(const json& job) { return Field(Field(job, "status"), "conditions"); }

std::string JobName(const json& job) {
  const json& meta = Field(job, "metadata");
  return String(meta, "namespace") + "/" + String(meta, "name");
}

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
      std::optional<Time> at = bootstrap::ParseRFC3339(String(c, "lastTransitionTime"));
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
