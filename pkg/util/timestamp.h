#pragma once
// Kubernetes timestamps: metav1.Time (RFC 3339, UTC, seconds: 2026-11-30T12:00:00Z) and
// metav1.MicroTime (microseconds: 2026-11-30T12:00:00.123456Z).

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace util {

std::string FormatTime(std::chrono::system_clock::time_point t);
std::string FormatMicroTime(std::chrono::system_clock::time_point t);
// Either form (fractional seconds, if any, are kept); only UTC ("Z") is expected.
std::optional<std::chrono::system_clock::time_point> ParseTime(std::string_view s);

}  // namespace util
