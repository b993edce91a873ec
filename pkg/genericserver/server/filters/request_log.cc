#include "pkg/genericserver/server/filters/request_log.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "pkg/util/duration.h"
#include "pkg/util/log.h"
#include "pkg/util/strings.h"
#include "pkg/util/uuid.h"

namespace genericserver::filters {
namespace {

std::string Upper(std::string s) {
  std::ranges::transform(s, s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

class RequestLog final : public Handler {
 public:
  RequestLog(HandlerPtr next, std::shared_ptr<Metrics> metrics)
      : next_(std::move(next)), metrics_(std::move(metrics)) {}

  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override {
    auto given = ctx.request.headers.Get("Audit-ID");
    ctx.audit_id = given && !given->empty() ? std::string(*given) : util::NewUUID();
    out.ExtraHeaders().Set("Audit-Id", ctx.audit_id);
    out.ExtraHeaders().Set("Cache-Control", "no-cache, private");
    // Long-running requests are counted while they are served (the gauge tests and
    // operators read to know a watch is established).
    std::optional<RequestLabels> long_running;
    if (endpoints::IsLongRunning(ctx.info)) long_running = LabelsFor(ctx);
    if (long_running) metrics_->AddLongRunning(*long_running, 1);
    bool failed = true;
    try {
      co_await next_->Serve(ctx, out);
      failed = false;
    } catch (...) {
      if (long_running) metrics_->AddLongRunning(*long_running, -1);
      Record(ctx, out.Started() ? out.StatusCode() : 500);
      throw;
    }
    if (long_running) metrics_->AddLongRunning(*long_running, -1);
    if (!failed) Record(ctx, out.StatusCode());
  }

 private:
  void Record(const RequestContext& ctx, int code) {
    auto elapsed = std::chrono::steady_clock::now() - ctx.received;
    metrics_->ObserveRequest(LabelsFor(ctx), code, std::chrono::duration<double>(elapsed).count());
    const int level = code >= 500 ? 2 : 3;
    KLOG_V(level) << "HTTP verb=" << util::Quote(ctx.request.method)
                  << " URI=" << util::Quote(ctx.request.target) << " latency="
                  << util::Quote(
                         util::FormatDuration(std::chrono::duration_cast<util::Duration>(elapsed)))
                  << " userAgent="
                  << util::Quote(ctx.request.headers.Get("User-Agent").value_or(""))
                  << " audit-ID=" << util::Quote(ctx.audit_id)
                  << " srcIP=" << util::Quote(ctx.request.remote_address) << " resp=" << code;
  }

  HandlerPtr next_;
  std::shared_ptr<Metrics> metrics_;
};

}  // namespace

RequestLabels LabelsFor(const RequestContext& ctx) {
  const endpoints::RequestInfo& info = ctx.info;
  RequestLabels l;
  l.verb = Upper(ctx.request.method);
  if (!info.is_resource_request) return l;
  l.group = info.api_group;
  l.version = info.api_version;
  l.resource = info.resource;
  l.subresource = info.subresource;
  if (info.verb == "list") l.verb = "LIST";
  if (info.verb == "watch") l.verb = "WATCH";
  if (info.verb == "proxy" || info.subresource == "exec" || info.subresource == "attach" ||
      info.subresource == "portforward" || info.subresource == "proxy") {
    l.verb = "CONNECT";
  }
  auto content_type = ctx.request.headers.Get("Content-Type");
  if (l.verb == "PATCH" && content_type && content_type->starts_with("application/apply-patch")) {
    l.verb = "APPLY";
  }
  auto dry_run = ctx.request.query.Values("dryRun");
  std::ranges::sort(dry_run);
  l.dry_run = util::Join(dry_run, ",");
  if (!info.name.empty() || info.verb == "create") {
    l.scope = "resource";
  } else if (!info.namespace_.empty()) {
    l.scope = "namespace";
  } else {
    l.scope = "cluster";
  }
  return l;
}

HandlerPtr WithRequestLog(HandlerPtr next, std::shared_ptr<Metrics> metrics) {
  return std::make_unique<RequestLog>(std::move(next), std::move(metrics));
}

}  // namespace genericserver::filters
