#include <catch2/catch.hpp>

#include "pkg/util/duration.h"

using namespace std::chrono_literals;

TEST_CASE("ParseDuration accepts Go's syntax") {
  CHECK(*util::ParseDuration("60s") == 60s);
  CHECK(*util::ParseDuration("1m30s") == 90s);
  CHECK(*util::ParseDuration("1.5h") == 90min);
  CHECK(*util::ParseDuration("500ms") == 500ms);
  CHECK(*util::ParseDuration("0") == 0s);
  CHECK(*util::ParseDuration("-2s") == -2s);
  CHECK(*util::ParseDuration("10us") == 10us);
}

TEST_CASE("ParseDuration rejects what Go rejects, with Go's messages") {
  CHECK(util::ParseDuration("").error() == "time: invalid duration \"\"");
  CHECK(util::ParseDuration("abc").error() == "time: invalid duration \"abc\"");
  CHECK(util::ParseDuration("10").error() == "time: missing unit in duration \"10\"");
  CHECK(util::ParseDuration("10x").error() == "time: unknown unit \"x\" in duration \"10x\"");
}

TEST_CASE("FormatDuration prints like Go's Duration.String") {
  CHECK(util::FormatDuration(0s) == "0s");
  CHECK(util::FormatDuration(60s) == "1m0s");
  CHECK(util::FormatDuration(3600s) == "1h0m0s");
  CHECK(util::FormatDuration(1500ms) == "1.5s");
  CHECK(util::FormatDuration(500ms) == "500ms");
  CHECK(util::FormatDuration(1500us) == "1.5ms");
  CHECK(util::FormatDuration(-90s) == "-1m30s");
}
