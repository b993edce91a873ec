// Kubernetes timestamps (pkg/util/timestamp.h): RFC 3339 as Go's time.Parse(time.RFC3339)
// reads it, offsets included, and the metav1.Time and metav1.MicroTime forms written.
#include <catch2/catch.hpp>

#include "pkg/util/timestamp.h"
#include "test/unit/support/time_at.h"

using namespace std::chrono_literals;

namespace {

using testing::At;

}  // namespace

TEST_CASE("RFC 3339 times as Go's time.RFC3339 reads them", "[util][timestamp]") {
  // 2026-11-30T12:00:00Z is 1796040000 s after the epoch (date -u -d ... +%s).
  const util::MicroTime noon = At("2026-11-30T12:00:00Z");
  CHECK(noon.time_since_epoch() == std::chrono::seconds(1796040000));
  CHECK(At("2026-11-30T13:00:00+01:00") == noon);
  CHECK(At("2026-11-30T06:30:00-05:30") == noon);
  CHECK(At("2026-11-30T12:00:00.25Z") == noon + 250ms);
  CHECK(At("2026-11-30T12:00:00.123456789Z") == noon + 123456us);
  CHECK(At("1970-01-01T00:00:00Z").time_since_epoch().count() == 0);
  // A year nanoseconds could not hold.
  CHECK(At("9999-12-31T23:59:59Z") > At("2262-04-12T00:00:00Z"));
  CHECK(At("2024-02-29T00:00:00Z") == At("2024-02-28T00:00:00Z") + 24h);

  for (const char* bad :
       {"", "2026-11-30", "2026-11-30T12:00:00", "2026-11-30 12:00:00Z", "2026-11-30T12:00:00z",
        "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-11-31T00:00:00Z",
        "2026-11-30T24:00:00Z", "2026-11-30T12:60:00Z", "2026-11-30T12:00:60Z",
        "2026-11-30T12:00:00+0100", "2026-11-30T12:00:00+01:00x", "2026-11-30T12:00:00.Z",
        "26-11-30T12:00:00Z", "2026-11-30T12:00:00+24:00", "tomorrow"}) {
    INFO(bad);
    CHECK_FALSE(util::ParseRFC3339(bad).has_value());
  }
  CHECK(util::FormatMicroTime(At("2026-11-30T12:00:00.25+01:00")) == "2026-11-30T11:00:00.250000Z");
}

TEST_CASE("metav1.Time and MicroTime round trip through system_clock", "[util][timestamp]") {
  auto t = util::ParseTime("2026-11-30T12:00:00Z");
  REQUIRE(t.has_value());
  CHECK(std::chrono::system_clock::to_time_t(*t) == 1796040000);
  CHECK(util::FormatTime(*t) == "2026-11-30T12:00:00Z");
  auto micro = util::ParseTime("2026-11-30T12:00:00.123456Z");
  REQUIRE(micro.has_value());
  CHECK(*micro - *t == 123456us);
  CHECK(util::FormatMicroTime(*micro) == "2026-11-30T12:00:00.123456Z");
  CHECK(util::ParseTime("2026-11-30T13:00:00+01:00") == t);
  // Past what a system_clock time point holds.
  CHECK_FALSE(util::ParseTime("9999-12-31T23:59:59Z").has_value());
  CHECK_FALSE(util::ParseTime("2026-11-30T12:00:00").has_value());
}
