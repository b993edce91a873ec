#pragma once
#include <memory>

#include "pkg/genericserver/server/handler.h"
#include "pkg/genericserver/server/metrics.h"

namespace genericserver::filters {
// Caps concurrent requests: get/list/watch against read_only, every other verb
// against mutating (0 = no cap). Past the cap the answer is 429 TooManyRequests with
// Retry-After: 1, except for system:masters, who are always served. Long-running
// requests are neither counted nor refused. Needs the user: runs after authentication.
HandlerPtr WithMaxInFlightLimit(HandlerPtr next, int read_only, int mutating,
                                std::shared_ptr<Metrics> metrics);
}  // namespace genericserver::filters
