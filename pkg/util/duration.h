#pragma once
// Durations in Go's syntax, as kube-apiserver flags and query parameters use them
// ("60s", "1m30s", "500ms", "1h").

#include <chrono>
#include <expected>
#include <string>
#include <string_view>

namespace util {

using Duration = std::chrono::nanoseconds;

// Parses "[-]N<unit>..." with units ns, us, µs, ms, s, m, h; "0" alone is allowed.
// Errors read like Go's: time: invalid duration "x".
std::expected<Duration, std::string> ParseDuration(std::string_view s);
// Formats like Go's time.Duration.String(): "1m0s", "500ms", "0s".
std::string FormatDuration(Duration d);

}  // namespace util
