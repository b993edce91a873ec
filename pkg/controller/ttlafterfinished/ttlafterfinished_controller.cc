#include "pkg/controller/ttlafterfinished/ttlafterfinished_controller.h"

#include <algorithm>

#include <boost/asio/strand.hpp>
#include <nlohmann/json.hpp>

#include "pkg/controller/object.h"
#include "pkg/controller/ttlafterfinished/job_ttl.h"
#include "pkg/controller/worker.h"
#include "pkg/util/duration.h"
#include "pkg/util/log.h"
#include "pkg/util/strings.h"

namespace controller::ttlafterfinished {

using nlohmann::json;

namespace {

const client::GroupVersionResource kJobs{"batch", "v1", "jobs"};

bool BeingDeleted(const json& job) {
  return job.value("metadata", json::object()).contains("deletionTimestamp");
}

using util::Quote;

// A duration clamped to what nanoseconds hold (200 years either way), for a log line.
util::Duration LoggableDuration(std::chrono::microseconds d) {
  const std::chrono::microseconds limit = std::chrono::hours(24 * 365 * 200);
  return std::clamp(d, -limit, limit);
}

void OnJob(const std::shared_ptr<workqueue::Queue>& queue, const client::ObjectPtr& job,
           const char* what) {
  const std::string key = client::KeyOf(*job);
  KLOG_V(4) << Quote(what) << " job=" << Quote(key);
  if (BeingDeleted(*job) || !NeedsCleanup(*job)) return;
  KLOG_V(4) << "\"Add job to cleanup\" job=" << Quote(key);
  Enqueue(queue, key);
}

// What EvaluateTTL decided, logged as upstream does; for kWait the key is queued again.
void Follow(const TTLDecision& d, const std::string& key, Time now,
            const std::weak_ptr<workqueue::Queue>& weak_queue) {
  if (d.kind == TTLDecision::kNothing) return;
  if (d.finished_in_future) {
    KLOG_INFO << "\"Warning: Found Job finished in the future. This is likely due to time skew "
                 "in the cluster. Job cleanup will be deferred.\" job="
              << Quote(key);
  }
  KLOG_V(4) << "\"Found Job finished\" job=" << Quote(key)
            << " finishTime=" << Quote(util::FormatMicroTime(d.finish_at)) << " remainingTTL=\""
            << util::FormatDuration(LoggableDuration(d.remaining))
            << "\" startTime=" << Quote(util::FormatMicroTime(now))
            << " deadlineTTL=" << Quote(util::FormatMicroTime(d.expire_at));
  if (d.kind == TTLDecision::kWait) {
    if (auto q = weak_queue.lock()) EnqueueAfter(q, key, RequeueDelay(d.remaining));
  }
}

}  // namespace

std::expected<InitResult, std::string> StartTTLAfterFinishedController(ControllerContext& ctx) {
  auto jobs = ctx.informers->ForResource(kJobs);
  auto queue = workqueue::Queue::New(boost::asio::make_strand(ctx.io));
  auto api = ctx.client_for("ttl-after-finished-controller");

  client::ResourceEventHandler handler;
  handler.on_add = [queue](const client::ObjectPtr& o) { OnJob(queue, o, "Adding job"); };
  handler.on_update = [queue](const client::ObjectPtr&, const client::ObjectPtr& o) {
    OnJob(queue, o, "Updating job");
  };
  jobs->AddEventHandler(std::move(handler));

  std::weak_ptr<workqueue::Queue> weak_queue = queue;
  SyncFunc sync = [jobs, api, weak_queue](const std::string& key) -> Awaitable<SyncResult> {
    KLOG_V(4) << "\"Checking if Job is ready for cleanup\" job=" << Quote(key);
    client::ObjectPtr cached = jobs->Get(key);
    if (!cached) co_return SyncResult();
    const Time now = util::MicroNow();
    std::expected<TTLDecision, std::string> decision = EvaluateTTL(*cached, now);
    if (!decision) co_return std::unexpected(decision.error());
    Follow(*decision, key, now, weak_queue);
    if (decision->kind != TTLDecision::kExpired) co_return SyncResult();

    // The cached Job may be stale (its TTL changed): decide again on the server's copy.
    const std::pair<std::string, std::string> name = client::SplitKey(key);
    const std::string path = client::ResourcePath(kJobs, name.first, name.second);
    client::Result<json> fresh = co_await api->Get(path);
    if (!fresh) {
      if (fresh.error().IsNotFound()) co_return SyncResult();
      co_return std::unexpected(fresh.error().String());
    }
    const Time fresh_now = util::MicroNow();
    std::expected<TTLDecision, std::string> again = EvaluateTTL(*fresh, fresh_now);
    if (!again) co_return std::unexpected(again.error());
    Follow(*again, key, fresh_now, weak_queue);
    if (again->kind != TTLDecision::kExpired) co_return SyncResult();

    json options = DeleteOptionsWithUID(Meta(*fresh, "uid"), "Foreground");
    KLOG_V(4) << "\"Cleaning up Job\" job=" << Quote(key);
    client::Result<json> deleted = co_await api->Delete(path, &options);
    if (!deleted) co_return std::unexpected(deleted.error().String());
    co_return SyncResult();
  };
  KLOG_INFO << "\"Starting TTL after finished controller\"";
  RunWorkers(queue, ctx.options.concurrent_ttl_after_finished_syncs, "TTL after finished",
             std::move(sync), {jobs});
  return InitResult{true};
}

}  // namespace controller::ttlafterfinished
