#pragma once
// Kubernetes timestamps: metav1.Time (RFC 3339, UTC, seconds: 2026-11-30T12:00:00Z) and
// metav1.MicroTime (microseconds: 2026-11-30T12:00:00.123456Z), written and read; and
// RFC 3339 times as Go's time.Parse(time.RFC3339, s) reads them, for values users write by
// hand (a bootstrap token's `expiration`, a Job condition's lastTransitionTime), with an
// offset ("2026-11-30T13:00:00+01:00") and optional fractional seconds. Pure.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace util {

// Microseconds since the epoch, so that any four-digit year fits (a system_clock time
// point, nanoseconds, overflows after 2262).
using MicroTime = std::chrono::sys_time<std::chrono::microseconds>;

std::string FormatTime(std::chrono::system_clock::time_point t);
// "2026-11-30T12:00:00.123456Z" (UTC, microseconds).
std::string FormatMicroTime(MicroTime t);
std::string FormatMicroTime(std::chrono::system_clock::time_point t);

// std::nullopt unless `s` is "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)" with the
// fields in range (a day the month has, hour < 24, minute and second < 60, an offset below
// 24 hours); digits of the fraction past microseconds are dropped. Either form above, and
// a time with an offset, which is converted to UTC.
std::optional<MicroTime> ParseRFC3339(std::string_view s);
// ParseRFC3339 as a system_clock time point; std::nullopt too for a time it cannot hold.
std::optional<std::chrono::system_clock::time_point> ParseTime(std::string_view s);

// The current time in microseconds.
MicroTime MicroNow();

}  // namespace util
