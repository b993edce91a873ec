#pragma once
// The times the cleanup controllers compare: RFC 3339 timestamps as Go's
// time.Parse(time.RFC3339, s) reads them, for values users write by hand (a bootstrap
// token's `expiration`, a Job condition's lastTransitionTime): "2026-11-30T12:00:00Z",
// "2026-11-30T13:00:00+01:00", with optional fractional seconds; the current time; and
// the delay to queue a key again with. Times are microseconds since the epoch so that any
// four-digit year fits (nanoseconds would overflow after 2262). Pure.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace controller::bootstrap {

using Time = std::chrono::sys_time<std::chrono::microseconds>;

// std::nullopt unless `s` is "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)" with the
// fields in range (a day the month has, hour < 24, minute and second < 60); digits of the
// fraction past microseconds are dropped.
std::optional<Time> ParseRFC3339(std::string_view s);

// "2026-11-30T12:00:00.123456Z" (UTC, microseconds), for logs.
std::string FormatRFC3339(Time t);

// The current time in the same unit.
Time Now();

// The work queue delay for `remaining`: rounded up to whole milliseconds (so the key does
// not come back just before its time), and at most a day (a time years away, e.g. a skewed
// clock, would overflow the queue's clock; the key is looked at again daily instead).
std::chrono::milliseconds RequeueDelay(std::chrono::microseconds remaining);

}  // namespace controller::bootstrap
