#include "pkg/options/audit_options.h"

#include "pkg/genericserver/audit/log_backend.h"
#include "pkg/plugin/audit/webhook.h"
#include "pkg/util/log.h"
#include "pkg/util/strings.h"

namespace options {
namespace {

constexpr char kVersion[] = "audit.k8s.io/v1";

void CheckMode(const std::string& flag, const std::string& mode, std::vector<std::string>& errors) {
  if (mode != "batch" && mode != "blocking" && mode != "blocking-strict") {
    errors.push_back("invalid audit " + flag + " mode " + mode +
                     ", allowed modes are \"batch,blocking,blocking-strict\"");
  }
}

}  // namespace

void AuditOptions::AddFlags(FlagSet& fs) {
  fs.Section("Auditing flags");
  fs.String("audit-policy-file", &policy_file,
            "Path to the file that defines the audit policy configuration (audit.k8s.io/v1 "
            "Policy). Without it nothing is audited.");
  fs.String("audit-log-path", &log_path,
            "If set, all requests coming to the apiserver will be logged to this file. '-' "
            "means standard out.");
  fs.Int("audit-log-maxage", &log_max_age,
         "The maximum number of days to retain old audit log files based on the timestamp "
         "encoded in their filename.");
  fs.Int("audit-log-maxbackup", &log_max_backup,
         "The maximum number of old audit log files to retain. Setting a value of 0 will mean "
         "there's no restriction on the number of files.");
  fs.Int("audit-log-maxsize", &log_max_size,
         "The maximum size in megabytes of the audit log file before it gets rotated (0: 100).");
  fs.String("audit-log-format", &log_format,
            "Format of saved audits. \"legacy\" indicates 1-line text format for each event. "
            "\"json\" indicates structured json format. Known formats are legacy,json.");
  fs.String("audit-log-mode", &log_mode,
            "Strategy for sending audit events: blocking, batch or blocking-strict. Events are "
            "always buffered here (see docs/flags.md); accepted for compatibility.");
  fs.Int("audit-log-batch-buffer-size", &log_batch_buffer_size,
         "The size of the buffer to store events before writing them; when it is full, events "
         "are dropped and counted in apiserver_audit_error_total.");
  fs.String("audit-log-version", &log_version,
            "API group and version used for serializing audit events written to log.");
  fs.String("audit-webhook-config-file", &webhook_config_file,
            "Path to a kubeconfig formatted file that defines the audit webhook configuration.");
  fs.String("audit-webhook-mode", &webhook_mode,
            "Strategy for sending audit events: blocking, batch or blocking-strict. Events are "
            "always buffered and sent in batches here.");
  fs.Int("audit-webhook-batch-buffer-size", &webhook_batch_buffer_size,
         "The size of the buffer to store events before batching and writing.");
  fs.Int("audit-webhook-batch-max-size", &webhook_batch_max_size, "The maximum size of a batch.");
  fs.Duration("audit-webhook-batch-max-wait", &webhook_batch_max_wait,
              "The amount of time to wait before force writing the batch that hadn't reached "
              "the max size.");
  fs.Duration("audit-webhook-initial-backoff", &webhook_initial_backoff,
              "The amount of time to wait before retrying the first failed request.");
  fs.String("audit-webhook-version", &webhook_version,
            "API group and version used for serializing audit events written to webhook.");
}

std::vector<std::string> AuditOptions::Validate() const {
  std::vector<std::string> errors;
  if (!log_path.empty()) {
    if (log_format != "json" && log_format != "legacy") {
      errors.push_back("invalid audit log format " + log_format +
                       ", allowed formats are \"legacy,json\"");
    }
    if (log_max_age < 0)
      errors.push_back("--audit-log-maxage " + std::to_string(log_max_age) +
                       " can't be a negative number");
    if (log_max_backup < 0)
      errors.push_back("--audit-log-maxbackup " + std::to_string(log_max_backup) +
                       " can't be a negative number");
    if (log_max_size < 0)
      errors.push_back("--audit-log-maxsize " + std::to_string(log_max_size) +
                       " can't be a negative number");
    if (log_batch_buffer_size <= 0)
      errors.push_back("--audit-log-batch-buffer-size must be positive");
    CheckMode("log", log_mode, errors);
    if (log_version != kVersion) {
      errors.push_back("invalid audit log version " + log_version + ", supported: " + kVersion);
    }
  }
  if (!webhook_config_file.empty()) {
    CheckMode("webhook", webhook_mode, errors);
    if (webhook_batch_buffer_size <= 0)
      errors.push_back("--audit-webhook-batch-buffer-size must be positive");
    if (webhook_batch_max_size <= 0)
      errors.push_back("--audit-webhook-batch-max-size must be positive");
    if (webhook_batch_max_wait.count() <= 0)
      errors.push_back("--audit-webhook-batch-max-wait must be positive");
    if (webhook_initial_backoff.count() <= 0)
      errors.push_back("--audit-webhook-initial-backoff must be positive");
    if (webhook_version != kVersion) {
      errors.push_back("invalid audit webhook version " + webhook_version +
                       ", supported: " + kVersion);
    }
  }
  return errors;
}

std::expected<Audit, std::string> NewAudit(const AuditOptions& o) {
  Audit out;
  if (o.policy_file.empty()) {
    if (!o.log_path.empty() || !o.webhook_config_file.empty()) {
      KLOG_INFO << "No audit policy file provided, no events will be recorded";
    }
    return out;
  }
  auto policy = audit::LoadPolicyFile(o.policy_file);
  if (!policy) return std::unexpected(policy.error());
  std::vector<audit::BackendPtr> backends;
  if (!o.log_path.empty()) {
    audit::LogOptions log;
    log.path = o.log_path;
    log.max_age_days = o.log_max_age;
    log.max_backups = o.log_max_backup;
    log.max_size_mb = o.log_max_size;
    log.legacy_format = o.log_format == "legacy";
    log.buffer_size = static_cast<size_t>(o.log_batch_buffer_size);
    auto backend = audit::NewLogBackend(log);
    if (!backend) return std::unexpected("--audit-log-path: " + backend.error());
    backends.push_back(*backend);
  }
  if (!o.webhook_config_file.empty()) {
    audit::WebhookOptions webhook;
    webhook.config_file = o.webhook_config_file;
    webhook.buffer.buffer_size = static_cast<size_t>(o.webhook_batch_buffer_size);
    webhook.buffer.max_batch_size = static_cast<size_t>(o.webhook_batch_max_size);
    webhook.buffer.max_batch_wait = o.webhook_batch_max_wait;
    webhook.initial_backoff = o.webhook_initial_backoff;
    auto backend = audit::NewWebhookBackend(webhook);
    if (!backend) return std::unexpected(backend.error());
    backends.push_back(*backend);
  }
  if (backends.empty()) return out;
  out.policy = std::make_shared<const audit::Policy>(std::move(*policy));
  out.backend = audit::Union(std::move(backends));
  return out;
}

}  // namespace options
