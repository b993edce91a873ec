#include "pkg/controller/namespace/namespace_controller.h"

#include <algorithm>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "pkg/client/discovery/discovery.h"
#include "pkg/controller/worker.h"
#include "pkg/util/log.h"
#include "pkg/util/strings.h"
#include "pkg/util/timestamp.h"

namespace controller::namespacecontroller {

namespace net = boost::asio;
using nlohmann::json;

namespace {

const client::GroupVersionResource kNamespaces{"", "v1", "namespaces"};
constexpr char kFinalizer[] = "kubernetes";
constexpr auto kDeletionGracePeriod = std::chrono::seconds(5);
constexpr int kFinalizerEstimateSeconds = 15;
constexpr char kMetadataListAccept[] =
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";

struct ConditionSpec {
  const char* type;
  const char* failure_reason;
  const char* ok_reason;
  const char* ok_message;
};
constexpr ConditionSpec kConditions[] = {
    {"NamespaceDeletionDiscoveryFailure", "DiscoveryFailed", "ResourcesDiscovered",
     "All resources successfully discovered"},
    {"NamespaceDeletionGroupVersionParsingFailure", "GroupVersionParsingFailed",
     "ParsedGroupVersions", "All legacy kube types successfully parsed"},
    {"NamespaceDeletionContentFailure", "ContentDeletionFailed", "ContentDeleted",
     "All content successfully deleted, may be waiting on finalization"},
    {"NamespaceContentRemaining", "SomeResourcesRemain", "ContentRemoved",
     "All content successfully removed"},
    {"NamespaceFinalizersRemaining", "SomeFinalizerRemain", "ContentRemoved",
     "All content successfully removed"},
};

std::string Sorted(std::vector<std::string> items) {
  std::sort(items.begin(), items.end());
  return util::Join(items, ", ");
}

// The failure message of each condition, empty when it holds no failure.
std::string FailureMessage(size_t index, const ContentReport& r) {
  switch (index) {
    case 0:
      if (r.discovery_failures.empty()) return "";
      return "Discovery failed for some groups, " + std::to_string(r.discovery_failures.size()) +
             " failing: unable to retrieve the complete list of server APIs: " +
             Sorted(r.discovery_failures);
    case 1:
      return Sorted(r.parse_failures);
    case 2:
      if (r.deletion_failures.empty()) return "";
      return "Failed to delete all resource types, " + std::to_string(r.deletion_failures.size()) +
             " remaining: " + Sorted(r.deletion_failures);
    case 3: {
      if (r.remaining_by_resource.empty()) return "";
      std::vector<std::string> parts;
      for (const auto& [resource, n] : r.remaining_by_resource) {
        parts.push_back(resource + " has " + std::to_string(n) + " resource instances");
      }
      return "Some resources are remaining: " + Sorted(parts);
    }
    default: {
      if (r.remaining_by_finalizer.empty()) return "";
      std::vector<std::string> parts;
      for (const auto& [finalizer, n] : r.remaining_by_finalizer) {
        parts.push_back(finalizer + " in " + std::to_string(n) + " resource instances");
      }
      return "Some finalizers are remaining: " + Sorted(parts);
    }
  }
}

std::vector<std::string> Strings(const json& array) {
  std::vector<std::string> out;
  if (!array.is_array()) return out;
  for (const json& s : array) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
}

Awaitable<void> Sleep(std::chrono::milliseconds d) {
  net::steady_timer timer(co_await net::this_coro::executor, d);
  boost::system::error_code ec;
  co_await timer.async_wait(net::redirect_error(net::use_awaitable, ec));
}

struct Deleter {
  std::shared_ptr<client::RestClient> api;

  // Deletes the content of one resource in `ns` and counts what remains.
  Awaitable<void> DeleteResource(const client::ApiResource& r, const std::string& ns,
                                 ContentReport& report, int& estimate) {
    const std::string path = client::ResourcePath(r.gvr, ns);
    const std::string name = r.gvr.resource + "." + r.gvr.group;
    const json options = {
        {"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"propagationPolicy", "Background"}};
    bool deleted = false;
    if (r.Supports("deletecollection")) {
      auto d = co_await api->Delete(path, &options);
      if (d) {
        deleted = true;
      } else if (d.error().code != 405 && d.error().code != 404) {
        report.deletion_failures.push_back(name + ": " + d.error().String());
        co_return;
      }
    }
    if (!r.Supports("list")) co_return;
    const std::string no_body, no_type, accept = kMetadataListAccept;
    auto listed = co_await api->Do("GET", path, no_body, no_type, accept);
    if (!listed) {
      report.deletion_failures.push_back(name + ": " + listed.error().String());
      co_return;
    }
    if (listed->status == 404 || listed->status == 405) co_return;
    if (listed->status != 200) {
      report.deletion_failures.push_back(
          name + ": " + client::ErrorFromResponse(listed->status, listed->body).String());
      co_return;
    }
    json list = json::parse(listed->body, nullptr, false);
    const json items = list.is_object() ? list.value("items", json::array()) : json::array();
    if (items.empty()) co_return;
    if (!deleted && r.Supports("delete")) {
      // No deletecollection: one delete per item.
      for (const json& item : items) {
        const std::string item_name = item["metadata"].value("name", "");
        auto d = co_await api->Delete(client::ResourcePath(r.gvr, ns, item_name), &options);
        if (!d && !d.error().IsNotFound()) {
          report.deletion_failures.push_back(name + ": " + d.error().String());
        }
      }
      // What is gone now is counted by the next pass.
    }
    report.remaining_by_resource[name] += static_cast<int>(items.size());
    for (const json& item : items) {
      const json& meta = item["metadata"];
      const std::vector<std::string> finalizers = Strings(meta.value("finalizers", json()));
      for (const std::string& f : finalizers) report.remaining_by_finalizer[f] += 1;
      if (!finalizers.empty()) estimate = std::max(estimate, kFinalizerEstimateSeconds);
      if (r.gvr.resource == "pods" && r.gvr.group.empty()) {
        estimate = std::max<int>(estimate, meta.value("deletionGracePeriodSeconds", 1));
      }
    }
    estimate = std::max(estimate, 1);
  }

  // One pass: the sync of namespace `name`. Returns after deleting what it could; asks to be
  // requeued after a delay (no error) while content remains.
  Awaitable<SyncResult> Sync(const std::string& name,
                             const std::shared_ptr<workqueue::Queue>& queue) {
    auto got = co_await api->Get(client::ResourcePath(kNamespaces, "", name));
    if (!got) {
      if (got.error().IsNotFound()) {
        KLOG_V(2) << "\"Namespace has been deleted\" namespace=\"" << name << "\"";
        co_return SyncResult();
      }
      co_return std::unexpected(got.error().String());
    }
    json ns = std::move(*got);
    const json& meta = ns["metadata"];
    if (!meta.contains("deletionTimestamp")) co_return SyncResult();
    json spec_finalizers = ns.value("spec", json::object()).value("finalizers", json::array());
    const std::vector<std::string> finalizers = Strings(spec_finalizers);
    if (std::find(finalizers.begin(), finalizers.end(), kFinalizer) == finalizers.end()) {
      co_return SyncResult();  // finalized already
    }

    ContentReport report;
    int estimate = 0;
    auto discovered = co_await client::ServerPreferredResources(*api);
    if (!discovered) co_return std::unexpected(discovered.error().String());
    for (const auto& [gv, error] : discovered->failed) {
      report.discovery_failures.push_back(gv + ": " + error);
    }
    for (const client::ApiResource& r : discovered->resources) {
      if (!r.namespaced || !r.Supports("delete")) continue;
      co_await DeleteResource(r, name, report, estimate);
    }

    // Conditions, written when they changed.
    const json old_conditions =
        ns.value("status", json::object()).value("conditions", json::array());
    json conditions = DeletionConditions(report, old_conditions,
                                         util::FormatTime(std::chrono::system_clock::now()));
    if (conditions != old_conditions) {
      json status_update = ns;
      status_update["status"]["conditions"] = conditions;
      auto put =
          co_await api->Put(client::ResourcePath(kNamespaces, "", name, "status"), status_update);
      if (put) {
        ns = std::move(*put);
      } else if (put.error().IsNotFound()) {
        co_return SyncResult();
      } else if (!put.error().IsConflict()) {
        co_return std::unexpected(put.error().String());
      }
    }
    if (!report.discovery_failures.empty() || !report.parse_failures.empty() ||
        !report.deletion_failures.empty()) {
      co_return std::unexpected(FailureMessage(2, report).empty() ? FailureMessage(0, report)
                                                                  : FailureMessage(2, report));
    }
    if (!report.remaining_by_resource.empty()) {
      const int seconds = estimate / 2 + 1;
      KLOG_V(4) << "\"Content remaining in namespace\" namespace=\"" << name
                << "\" waitTime=" << seconds << "s";
      queue->AddAfter(name, std::chrono::seconds(seconds));
      co_return SyncResult();
    }

    // Nothing left: remove our finalizer (retried on conflict with the latest object).
    for (int attempt = 0; attempt < 5; ++attempt) {
      json update = ns;
      json kept = json::array();
      for (const std::string& f :
           Strings(update.value("spec", json::object()).value("finalizers", json::array()))) {
        if (f != kFinalizer) kept.push_back(f);
      }
      update["spec"]["finalizers"] = kept;
      auto put = co_await api->Put(client::ResourcePath(kNamespaces, "", name, "finalize"), update);
      if (put || put.error().IsNotFound()) co_return SyncResult();
      if (!put.error().IsConflict()) co_return std::unexpected(put.error().String());
      auto fresh = co_await api->Get(client::ResourcePath(kNamespaces, "", name));
      if (!fresh) {
        if (fresh.error().IsNotFound()) co_return SyncResult();
        co_return std::unexpected(fresh.error().String());
      }
      ns = std::move(*fresh);
    }
    co_return std::unexpected(std::string("finalizing: too many conflicts"));
  }
};

bool Deleting(const json& ns) {
  return ns.value("metadata", json::object()).contains("deletionTimestamp");
}

}  // namespace

json DeletionConditions(const ContentReport& report, const json& old_conditions,
                        const std::string& now) {
  json out = json::array();
  for (size_t i = 0; i < std::size(kConditions); ++i) {
    const ConditionSpec& spec = kConditions[i];
    const std::string failure = FailureMessage(i, report);
    json c = {{"type", spec.type},
              {"status", failure.empty() ? "False" : "True"},
              {"lastTransitionTime", now},
              {"reason", failure.empty() ? spec.ok_reason : spec.failure_reason},
              {"message", failure.empty() ? std::string(spec.ok_message) : failure}};
    if (old_conditions.is_array()) {
      for (const json& old : old_conditions) {
        if (old.value("type", "") == spec.type && old.value("status", "") == c["status"] &&
            old.contains("lastTransitionTime")) {
          c["lastTransitionTime"] = old["lastTransitionTime"];
        }
      }
    }
    out.push_back(std::move(c));
  }
  // Conditions of other types are kept after ours.
  if (old_conditions.is_array()) {
    for (const json& old : old_conditions) {
      const std::string type = old.value("type", "");
      if (std::none_of(std::begin(kConditions), std::end(kConditions),
                       [&](const ConditionSpec& s) { return type == s.type; })) {
        out.push_back(old);
      }
    }
  }
  return out;
}

std::expected<InitResult, std::string> StartNamespaceController(ControllerContext& ctx) {
  // Upstream's namespace client: 20 times the QPS and 100 times the burst.
  client::RestConfig config = ctx.client_for("namespace-controller")->config();
  config.qps *= 20;
  config.burst *= 100;
  auto api =
      client::RestClient::New(config, "kube-controller-manager/namespace-controller", ctx.io);
  if (!api) return std::unexpected(api.error());
  auto namespaces = ctx.informers->ForResource(kNamespaces);
  auto queue =
      workqueue::Queue::New(net::make_strand(ctx.io), workqueue::MaxOfRateLimiter([] {
                              std::vector<workqueue::RateLimiterPtr> limiters;
                              limiters.push_back(workqueue::ItemExponentialFailureRateLimiter(
                                  std::chrono::milliseconds(5), std::chrono::seconds(60)));
                              limiters.push_back(workqueue::BucketRateLimiter(10, 100));
                              return limiters;
                            }()));

  auto enqueue = [queue](const client::ObjectPtr& o) {
    if (Deleting(*o)) {
      EnqueueAfter(queue, client::KeyOf(*o),
                   std::chrono::duration_cast<std::chrono::milliseconds>(kDeletionGracePeriod));
    }
  };
  client::ResourceEventHandler handler;
  handler.on_add = enqueue;
  handler.on_update = [enqueue](const client::ObjectPtr&, const client::ObjectPtr& o) {
    enqueue(o);
  };
  namespaces->AddEventHandler(std::move(handler));

  // The resync: every --namespace-sync-period, each namespace being deleted again.
  const auto period = ctx.options.namespace_sync_period;
  if (period.count() > 0) {
    net::co_spawn(
        queue->strand(),
        [queue, namespaces, period]() -> Awaitable<void> {
          while (!queue->ShuttingDown()) {
            co_await Sleep(period);
            for (const client::ObjectPtr& o : namespaces->List()) {
              if (Deleting(*o)) queue->Add(client::KeyOf(*o));
            }
          }
        },
        net::detached);
  }

  auto deleter = std::make_shared<Deleter>(Deleter{*api});
  std::weak_ptr<workqueue::Queue> weak_queue = queue;
  SyncFunc sync = [deleter, weak_queue](const std::string& name) -> Awaitable<SyncResult> {
    auto q = weak_queue.lock();
    if (!q) co_return SyncResult();
    co_return co_await deleter->Sync(name, q);
  };
  KLOG_INFO << "Starting namespace controller";
  RunWorkers(queue, ctx.options.concurrent_namespace_syncs, "namespace", std::move(sync),
             {namespaces});
  return InitResult{true};
}

}  // namespace controller::namespacecontroller
