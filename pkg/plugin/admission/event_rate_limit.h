#pragma once
// EventRateLimit admission (upstream's plugin of that name, off by default): creates and
// updates of core Events are limited by token buckets, one per key of each configured limit
// type (Server: one for all; Namespace; User; SourceAndObject: the event's source and
// involved object), `qps` and `burst` each, at most `cacheSize` keys kept (the least
// recently used dropped). An event over a limit is refused with 429 "Too many requests:
// limit reached on type Namespace for key default". Dry runs are not counted. Thread-safe.

#include <expected>
#include <string>

#include "pkg/genericserver/admission/plugin.h"

namespace plugin::admission {

// Parses the plugin's Configuration (eventratelimit.admission.k8s.io/v1alpha1, JSON) and makes
// the plugin; the error is what stops the server.
std::expected<::admission::PluginPtr, std::string> NewEventRateLimit(const std::string& config);

}  // namespace plugin::admission
