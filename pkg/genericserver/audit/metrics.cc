#include "pkg/genericserver/audit/metrics.h"

#include <array>
#include <atomic>
#include <sstream>

namespace audit {
namespace {

struct Counters {
  std::atomic<uint64_t> events{0};
  std::array<std::atomic<uint64_t>, 4> levels{};
  std::atomic<uint64_t> log_errors{0}, webhook_errors{0};
};

Counters& Get() {
  static Counters counters;
  return counters;
}

std::atomic<uint64_t>* Errors(std::string_view plugin) {
  if (plugin == "log") return &Get().log_errors;
  if (plugin == "webhook") return &Get().webhook_errors;
  return nullptr;
}

}  // namespace

void CountEvent() { Get().events.fetch_add(1, std::memory_order_relaxed); }

void CountLevel(Level level) {
  Get().levels[static_cast<size_t>(level)].fetch_add(1, std::memory_order_relaxed);
}

void CountErrors(std::string_view plugin, uint64_t n) {
  if (auto* c = Errors(plugin)) c->fetch_add(n, std::memory_order_relaxed);
}

uint64_t ErrorCount(std::string_view plugin) {
  auto* c = Errors(plugin);
  return c ? c->load(std::memory_order_relaxed) : 0;
}

std::string RenderMetrics() {
  Counters& c = Get();
  std::ostringstream out;
  out << "# HELP apiserver_audit_event_total Counter of audit events generated and sent to the "
         "audit backend.\n# TYPE apiserver_audit_event_total counter\n"
      << "apiserver_audit_event_total " << c.events.load() << "\n";
  out << "# HELP apiserver_audit_error_total Counter of audit events that failed to be audited "
         "properly. Plugin identifies the plugin affected by the error.\n"
         "# TYPE apiserver_audit_error_total counter\n"
      << "apiserver_audit_error_total{plugin=\"log\"} " << c.log_errors.load() << "\n"
      << "apiserver_audit_error_total{plugin=\"webhook\"} " << c.webhook_errors.load() << "\n";
  out << "# HELP apiserver_audit_level_total Counter of policy levels for audit events (1 per "
         "request).\n# TYPE apiserver_audit_level_total counter\n";
  for (size_t i = 1; i < c.levels.size(); ++i) {
    out << "apiserver_audit_level_total{level=\"" << LevelName(static_cast<Level>(i)) << "\"} "
        << c.levels[i].load() << "\n";
  }
  out << "# HELP apiserver_audit_requests_rejected_total Counter of apiserver requests rejected "
         "due to an error in audit logging backend.\n"
         "# TYPE apiserver_audit_requests_rejected_total counter\n"
         "apiserver_audit_requests_rejected_total 0\n";
  return out.str();
}

}  // namespace audit
