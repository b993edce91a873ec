#pragma once
// kube-controller-manager's HTTPS endpoints: /healthz (a check per started controller and
// `leaderElection`), /livez and /readyz with the same checks, /metrics and /configz.
// Authentication and authorization are delegated to the API server as upstream's
// component-base does: a client certificate verified against the cluster's client CA, or a
// bearer token checked with a TokenReview; then a SubjectAccessReview for the path and verb.
// The --authorization-always-allow-paths skip both.
//
// Threads: the handler is called from any I/O thread at once; the health checks are added
// while serving, so they are kept behind a mutex.

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pkg/client/rest/client.h"
#include "pkg/genericserver/server/handler.h"
#include "pkg/genericserver/server/healthz.h"

namespace controllermanager {

// The health checks served, which grow as controllers start.
class HealthChecks {
 public:
  void Add(std::vector<genericserver::HealthCheck> checks);
  std::vector<genericserver::HealthCheck> Snapshot() const;

 private:
  mutable std::mutex mu_;
  std::vector<genericserver::HealthCheck> checks_;
};

struct ServingConfig {
  std::shared_ptr<HealthChecks> checks;
  // Delegated authentication and authorization; null: every request is allowed.
  std::shared_ptr<client::RestClient> delegate;
  std::vector<std::string> always_allow_paths;
  std::function<std::string()> metrics;  // Prometheus text
  std::function<std::string()> configz;  // JSON
};

genericserver::HandlerPtr NewServingHandler(ServingConfig config);

}  // namespace controllermanager
