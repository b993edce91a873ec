#pragma once
// The audit metrics of upstream (apiserver_audit_event_total, apiserver_audit_error_total,
// apiserver_audit_level_total, apiserver_audit_requests_rejected_total), process-wide as
// upstream's are. Thread-safe (atomics).

#include <string>

#include "pkg/genericserver/audit/policy.h"

namespace audit {

// Each event handed to the backend.
void CountEvent();
// The level the policy gave a request (once per request).
void CountLevel(Level level);
// Events a backend ("log", "webhook") failed to write or dropped.
void CountErrors(std::string_view plugin, uint64_t n);
uint64_t ErrorCount(std::string_view plugin);
// The families in the Prometheus text format.
std::string RenderMetrics();

}  // namespace audit
