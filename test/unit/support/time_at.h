#pragma once
// A time written as RFC 3339 in a test ("2026-11-30T12:00:00Z"), failing the test when it
// does not parse.

#include <catch2/catch.hpp>

#include "pkg/util/timestamp.h"

namespace testing {

inline util::MicroTime At(const char* s) {
  auto t = util::ParseRFC3339(s);
  REQUIRE(t.has_value());
  return *t;
}

}  // namespace testing
