#pragma once
// --audit-policy-file and the backends: --audit-log-* (a file, or stdout) and
// --audit-webhook-* (a remote service, from a kubeconfig file).

#include <expected>
#include <memory>
#include <string>
#include <vector>

#include "pkg/genericserver/audit/backend.h"
#include "pkg/genericserver/audit/policy.h"
#include "pkg/options/flagset.h"
#include "pkg/util/duration.h"

namespace options {

struct AuditOptions {
  std::string policy_file;

  std::string log_path;  // "-": stdout
  int log_max_age = 0;
  int log_max_backup = 0;
  int log_max_size = 0;
  std::string log_format = "json";
  std::string log_mode = "blocking";
  int log_batch_buffer_size = 10000;
  std::string log_version = "audit.k8s.io/v1";

  std::string webhook_config_file;
  std::string webhook_mode = "batch";
  int webhook_batch_buffer_size = 10000;
  int webhook_batch_max_size = 400;
  util::Duration webhook_batch_max_wait = std::chrono::seconds(30);
  util::Duration webhook_initial_backoff = std::chrono::seconds(10);
  std::string webhook_version = "audit.k8s.io/v1";

  void AddFlags(FlagSet& fs);
  std::vector<std::string> Validate() const;
};

// What auditing needs at run time: both null when requests are not audited.
struct Audit {
  std::shared_ptr<const audit::Policy> policy;
  audit::BackendPtr backend;
};

// Loads the policy and opens the backends (the log file is created).
std::expected<Audit, std::string> NewAudit(const AuditOptions& options);

}  // namespace options
