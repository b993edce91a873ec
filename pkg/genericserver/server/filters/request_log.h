#pragma once
#include <memory>

#include "pkg/genericserver/server/handler.h"
#include "pkg/genericserver/server/metrics.h"

namespace genericserver::filters {
// Gives the request its Audit-Id and the common response headers, then, once the
// response is done, counts it in apiserver_request_total / _duration_seconds and logs
// one "HTTP" line at -v=3 (every error at -v=2).
HandlerPtr WithRequestLog(HandlerPtr next, std::shared_ptr<Metrics> metrics);

// The labels a request is counted under (verb as LIST/WATCH/GET/..., scope, ...).
RequestLabels LabelsFor(const RequestContext& ctx);
}  // namespace genericserver::filters
