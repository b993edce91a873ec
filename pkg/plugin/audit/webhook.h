#pragma once
// --audit-webhook-config-file: batches of events posted as an audit.k8s.io/v1 EventList to
// the server a kubeconfig file names (its cluster's server URL, CA and client credentials),
// as upstream's webhook backend posts them. A batch that fails (no answer, or a status
// other than 2xx) is retried with growing pauses from the initial backoff (x1.5, five
// tries), then dropped and counted in apiserver_audit_error_total{plugin="webhook"}.
//
// Threads: the BufferedBackend's thread does the posting, on an I/O loop of its own.

#include <expected>
#include <string>

#include "pkg/genericserver/audit/buffered_backend.h"

namespace audit {

struct WebhookOptions {
  std::string config_file;
  BufferOptions buffer;
  util::Duration initial_backoff = std::chrono::seconds(10);
};

std::expected<BackendPtr, std::string> NewWebhookBackend(const WebhookOptions& options);

}  // namespace audit
