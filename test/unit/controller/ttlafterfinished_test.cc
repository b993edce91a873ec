// The TTL-after-finished controller's decisions (pkg/controller/ttlafterfinished): which
// Jobs need cleaning up, when they finished, how long they have left.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/controller/ttlafterfinished/job_ttl.h"
#include "test/unit/support/time_at.h"

namespace ttl = controller::ttlafterfinished;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

using testing::At;

json Job(json conditions, json ttl_seconds = json()) {
  json job = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata", {{"name", "pi"}, {"namespace", "default"}, {"uid", "u1"}}},
              {"spec", json::object()},
              {"status", {{"conditions", std::move(conditions)}}}};
  if (!ttl_seconds.is_null()) job["spec"]["ttlSecondsAfterFinished"] = ttl_seconds;
  return job;
}

json Condition(const char* type, const char* status, const char* at) {
  json c = {{"type", type}, {"status", status}};
  if (at) c["lastTransitionTime"] = at;
  return c;
}

}  // namespace

TEST_CASE("finished Jobs and their finish time", "[controller][ttlafterfinished]") {
  CHECK(ttl::IsJobFinished(Job({Condition("Complete", "True", "2026-11-30T12:00:00Z")})));
  CHECK(ttl::IsJobFinished(Job({Condition("Failed", "True", "2026-11-30T12:00:00Z")})));
  CHECK_FALSE(ttl::IsJobFinished(Job({Condition("Complete", "False", "2026-11-30T12:00:00Z")})));
  CHECK_FALSE(
      ttl::IsJobFinished(Job({Condition("SuccessCriteriaMet", "True", "2026-11-30T12:00:00Z"),
                              Condition("Suspended", "True", "2026-11-30T12:00:00Z")})));
  CHECK_FALSE(ttl::IsJobFinished(Job(json::array())));

  // A TTL is needed too.
  CHECK_FALSE(ttl::NeedsCleanup(Job({Condition("Complete", "True", "2026-11-30T12:00:00Z")})));
  CHECK(ttl::NeedsCleanup(Job({Condition("Complete", "True", "2026-11-30T12:00:00Z")}, 0)));
  CHECK_FALSE(ttl::NeedsCleanup(Job({Condition("Complete", "False", "2026-11-30T12:00:00Z")}, 0)));

  // The first finishing condition with status True gives the time.
  auto t = ttl::JobFinishTime(Job({Condition("Failed", "False", "2026-11-30T10:00:00Z"),
                                   Condition("SuccessCriteriaMet", "True", "2026-11-30T11:00:00Z"),
                                   Condition("Complete", "True", "2026-11-30T12:00:00Z"),
                                   Condition("Failed", "True", "2026-11-30T13:00:00Z")},
                                  5));
  REQUIRE(t.has_value());
  CHECK(*t == At("2026-11-30T12:00:00Z"));

  auto no_time = ttl::JobFinishTime(Job({Condition("Complete", "True", nullptr)}, 5));
  REQUIRE_FALSE(no_time.has_value());
  CHECK(no_time.error() == "unable to find the time when the Job default/pi finished");
  auto unfinished = ttl::JobFinishTime(Job(json::array(), 5));
  REQUIRE_FALSE(unfinished.has_value());
  CHECK(unfinished.error() == "unable to find the status of the finished Job default/pi");
}

TEST_CASE("the TTL's remaining time", "[controller][ttlafterfinished]") {
  const ttl::Time now = At("2026-11-30T12:00:10Z");

  SECTION("nothing to do: no TTL, not finished, being deleted") {
    auto d = ttl::EvaluateTTL(Job({Condition("Complete", "True", "2026-11-30T12:00:00Z")}), now);
    REQUIRE(d.has_value());
    CHECK(d->kind == ttl::TTLDecision::kNothing);
    d = ttl::EvaluateTTL(Job(json::array(), 5), now);
    REQUIRE(d.has_value());
    CHECK(d->kind == ttl::TTLDecision::kNothing);
    json deleting = Job({Condition("Complete", "True", "2026-11-30T12:00:00Z")}, 5);
    deleting["metadata"]["deletionTimestamp"] = "2026-11-30T12:00:09Z";
    d = ttl::EvaluateTTL(deleting, now);
    REQUIRE(d.has_value());
    CHECK(d->kind == ttl::TTLDecision::kNothing);
  }
  SECTION("not yet: wait for the rest") {
    auto d =
        ttl::EvaluateTTL(Job({Condition("Complete", "True", "2026-11-30T12:00:00Z")}, 60), now);
    REQUIRE(d.has_value());
    CHECK(d->kind == ttl::TTLDecision::kWait);
    CHECK(d->remaining == 50s);
    CHECK(d->expire_at == At("2026-11-30T12:01:00Z"));
    CHECK_FALSE(d->finished_in_future);
  }
  SECTION("expired: exactly at the deadline and after it") {
    auto d = ttl::EvaluateTTL(Job({Condition("Failed", "True", "2026-11-30T12:00:00Z")}, 10), now);
    REQUIRE(d.has_value());
    CHECK(d->kind == ttl::TTLDecision::kExpired);
    CHECK(d->remaining == 0s);
    d = ttl::EvaluateTTL(Job({Condition("Complete", "True", "2026-11-30T11:00:00Z")}, 0), now);
    REQUIRE(d.has_value());
    CHECK(d->kind == ttl::TTLDecision::kExpired);
    CHECK(d->remaining == -(1h + 10s));
  }
  SECTION("a finish time with an offset and a fraction") {
    auto d = ttl::EvaluateTTL(
        Job({Condition("Complete", "True", "2026-11-30T13:00:05.5+01:00")}, 10), now);
    REQUIRE(d.has_value());
    CHECK(d->kind == ttl::TTLDecision::kWait);
    CHECK(d->remaining == 5500ms);
  }
  SECTION("finished in the future (clock skew): wait, and say so") {
    auto d = ttl::EvaluateTTL(Job({Condition("Complete", "True", "2026-11-30T12:05:00Z")}, 0), now);
    REQUIRE(d.has_value());
    CHECK(d->kind == ttl::TTLDecision::kWait);
    CHECK(d->finished_in_future);
    CHECK(d->remaining == 4min + 50s);
  }
  SECTION("a finished condition without a time is an error") {
    auto d = ttl::EvaluateTTL(Job({Condition("Complete", "True", nullptr)}, 10), now);
    REQUIRE_FALSE(d.has_value());
    CHECK(d.error() == "unable to find the time when the Job default/pi finished");
  }
}
