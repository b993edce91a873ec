#pragma once
// When a finished Job's time to live runs out (upstream's needsCleanup, jobFinishTime and
// timeLeft of the TTL-after-finished controller): a Job needs cleaning up once it has
// spec.ttlSecondsAfterFinished and a Complete or Failed condition with status True; it
// finished at that condition's lastTransitionTime and expires ttlSecondsAfterFinished
// seconds later. Pure.

#include <chrono>
#include <expected>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/util/timestamp.h"

namespace controller::ttlafterfinished {

// Job times, read with util::ParseRFC3339.
using Time = util::MicroTime;

// A Complete or Failed condition with status True (upstream's IsJobFinished).
bool IsJobFinished(const nlohmann::json& job);
// spec.ttlSecondsAfterFinished is set and the Job finished.
bool NeedsCleanup(const nlohmann::json& job);
// The lastTransitionTime of the first Complete or Failed condition with status True; an
// error with upstream's words when there is none or it has no time.
std::expected<Time, std::string> JobFinishTime(const nlohmann::json& job);

// What to do with a Job now (upstream's processTTL): nothing (being deleted, no TTL, not
// finished), wait `remaining` and look again, or delete (the TTL expired at `expire_at`).
struct TTLDecision {
  enum Kind { kNothing, kWait, kExpired } kind = kNothing;
  std::chrono::microseconds remaining{0};
  Time finish_at{}, expire_at{};
  bool finished_in_future = false;  // clock skew: upstream warns
};
std::expected<TTLDecision, std::string> EvaluateTTL(const nlohmann::json& job, Time now);

}  // namespace controller::ttlafterfinished
