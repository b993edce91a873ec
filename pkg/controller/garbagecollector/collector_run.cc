// Running the collector against the API server: the monitors' events into the graph, the
// periodic discovery sync (upstream's GarbageCollector.Sync), and the workers.
#include "pkg/controller/garbagecollector/collector.h"

#include <set>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "pkg/util/log.h"

namespace controller::garbagecollector {

namespace net = boost::asio;
using nlohmann::json;

namespace {

Awaitable<void> Sleep(std::chrono::milliseconds d) {
  net::steady_timer timer(co_await net::this_coro::executor, d);
  boost::system::error_code ec;
  co_await timer.async_wait(net::redirect_error(net::use_awaitable, ec));
}

// Go's %+v of a GroupVersionResource, as upstream's printDiff shows them.
std::string Show(const client::GroupVersionResource& gvr) {
  return "{Group:" + gvr.group + " Version:" + gvr.version + " Resource:" + gvr.resource + "}";
}

std::string Diff(const std::map<client::GroupVersionResource, client::ApiResource>& old_set,
                 const std::map<client::GroupVersionResource, client::ApiResource>& new_set) {
  std::set<std::string> added, removed;
  for (const auto& [gvr, r] : new_set) {
    if (!old_set.contains(gvr)) added.insert(Show(gvr));
  }
  for (const auto& [gvr, r] : old_set) {
    if (!new_set.contains(gvr)) removed.insert(Show(gvr));
  }
  auto list = [](const std::set<std::string>& s) {
    std::string out = "[";
    bool first = true;
    for (const std::string& v : s) {
      out += (first ? "" : " ") + v;
      first = false;
    }
    return out + "]";
  };
  return "added: " + list(added) + ", removed: " + list(removed);
}

bool SameResources(const std::map<client::GroupVersionResource, client::ApiResource>& a,
                   const std::map<client::GroupVersionResource, client::ApiResource>& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
    if (!(i->first == j->first)) return false;
  }
  return true;
}

}  // namespace

void GarbageCollector::OnMonitorEvent(const MonitorEvent& event) {
  if (!event.object) return;
  GraphEvent g;
  g.type = event.type;
  g.api_version = event.api_version;
  g.kind = event.kind;
  g.object = ParseObjectMeta(*event.object);
  if (event.old_object) g.old_object = ParseObjectMeta(*event.old_object);
  builder_.Process(g);
}

void GarbageCollector::Run(std::shared_ptr<client::RestClient> client, int workers,
                           std::shared_ptr<std::atomic<bool>> informers_started,
                           std::chrono::milliseconds sync_period) {
  auto self = shared_from_this();
  net::post(strand_, [self, client, workers, informers_started, sync_period] {
    if (!self->monitors_) {
      std::weak_ptr<GarbageCollector> weak = self;
      Strand strand = self->strand_;
      // Called on an informer's strand: only posts the event to ours.
      MonitorSink sink = [weak, strand](MonitorEvent event) {
        net::post(strand, [weak, event = std::move(event)] {
          if (auto gc = weak.lock()) gc->OnMonitorEvent(event);
        });
      };
      self->monitors_ = std::make_unique<Monitors>(client, strand.get_inner_executor(), sink);
    }
    net::co_spawn(self->strand_,
                  self->RunAsync(self, client, workers, informers_started, sync_period),
                  net::detached);
  });
}

Awaitable<void> GarbageCollector::RunAsync(std::shared_ptr<GarbageCollector> self,
                                           std::shared_ptr<client::RestClient> client, int workers,
                                           std::shared_ptr<std::atomic<bool>> informers_started,
                                           std::chrono::milliseconds sync_period) {
  KLOG_INFO << "\"Starting controller\" controller=\"garbagecollector\"";
  KLOG_INFO << "\"Running\" component=\"GraphBuilder\"";
  net::co_spawn(strand_, SyncLoop(self, client, informers_started, sync_period), net::detached);

  KLOG_INFO << "Waiting for caches to sync for garbage collector";
  while (!monitors_->IsSynced()) co_await Sleep(std::chrono::milliseconds(100));
  KLOG_INFO << "Caches are synced for garbage collector";
  KLOG_INFO << "\"All resource monitors have synced. Proceeding to collect garbage\"";
  for (int i = 0; i < workers; ++i) {
    net::co_spawn(strand_, Worker(self, attempt_to_delete_, false), net::detached);
    net::co_spawn(strand_, Worker(self, attempt_to_orphan_, true), net::detached);
  }
}

Awaitable<void> GarbageCollector::Worker(std::shared_ptr<GarbageCollector> self,
                                         std::shared_ptr<workqueue::Queue> queue, bool orphan) {
  while (true) {
    std::optional<std::string> key = co_await queue->Get();
    if (!key) co_return;
    // Upstream's workerLock: an item in hand waits while the monitors resync.
    while (paused_) co_await Sleep(std::chrono::milliseconds(50));
    ++in_flight_;
    WorkAction action = WorkAction::kRequeue;
    try {
      if (orphan) {
        action = co_await AttemptToOrphanWorker(*key);
      } else {
        action = co_await AttemptToDeleteWorker(*key);
      }
    } catch (const std::exception& e) {
      KLOG_ERROR << "garbage collector: " << (orphan ? "orphaning " : "processing ") << *key
                 << " failed: " << e.what();
    }
    --in_flight_;
    if (action == WorkAction::kForget) {
      queue->Forget(*key);
    } else {
      queue->AddRateLimited(*key);
    }
    queue->Done(*key);
  }
}

Awaitable<void> GarbageCollector::PauseWorkers() {
  paused_ = true;
  while (in_flight_ > 0) co_await Sleep(std::chrono::milliseconds(10));
}

Awaitable<bool> GarbageCollector::WaitForMonitorsSynced(std::chrono::milliseconds timeout) {
  KLOG_INFO << "Waiting for caches to sync for garbage collector";
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!monitors_->IsSynced()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      KLOG_ERROR << "unable to sync caches for garbage collector";
      co_return false;
    }
    co_await Sleep(std::chrono::milliseconds(100));
  }
  KLOG_INFO << "Caches are synced for garbage collector";
  co_return true;
}

Awaitable<GarbageCollector::Deletable> GarbageCollector::GetDeletableResources(
    client::RestClient& client) {
  Deletable out;
  auto found = co_await client::ServerPreferredResources(client);
  if (!found) {
    KLOG_INFO << "\"failed to discover preferred resources\" error=\"" << found.error().String()
              << "\"";
    co_return out;
  }
  out.failed = found->failed;
  if (!out.failed.empty()) {
    std::string groups = "map[";
    bool first = true;
    for (const auto& [gv, err] : out.failed) {
      groups += (first ? "" : " ") + gv + ":" + err;
      first = false;
    }
    KLOG_INFO << "\"failed to discover some groups\" groups=\"" << groups << "]\"";
  }
  for (const client::ApiResource& r : found->WithVerbs({"delete", "list", "watch"})) {
    out.resources.emplace(r.gvr, r);
  }
  // Every version each group serves, so that references to a non-preferred version map.
  auto groups = co_await client.Get("/apis");
  ServedVersions served = groups ? ParseServedVersions(*groups) : ParseServedVersions(json());
  out.mapper = RestMapper(*found, std::move(served));
  co_return out;
}

Awaitable<void> GarbageCollector::SyncLoop(std::shared_ptr<GarbageCollector> self,
                                           std::shared_ptr<client::RestClient> client,
                                           std::shared_ptr<std::atomic<bool>> informers_started,
                                           std::chrono::milliseconds period) {
  std::map<client::GroupVersionResource, client::ApiResource> old_resources;
  // In partial discovery, synced monitors of the groups that failed are kept.
  auto keep_failed = [this, &old_resources](Deletable& d) {
    for (const auto& [gvr, r] : old_resources) {
      if (d.failed.contains(gvr.GroupVersion()) && monitors_->IsResourceSynced(gvr)) {
        d.resources.emplace(gvr, r);
      }
    }
  };
  while (true) {
    Deletable found = co_await GetDeletableResources(*client);
    if (found.resources.empty()) {
      KLOG_V(2) << "\"no resources reported by discovery, skipping garbage collector sync\"";
      co_await Sleep(period);
      continue;
    }
    keep_failed(found);
    // The mapper follows discovery on every round (upstream resets its RESTMapper every
    // 30 s), even when the deletable resources did not change.
    mapper_ = found.mapper;
    if (SameResources(old_resources, found.resources)) {
      KLOG_V(5) << "\"no resource updates from discovery, skipping garbage collector sync\"";
      co_await Sleep(period);
      continue;
    }

    // Workers wait until the new monitors have synced.
    co_await PauseWorkers();
    for (int attempt = 1;; ++attempt) {
      if (attempt > 1) {
        co_await Sleep(std::chrono::milliseconds(100));
        found = co_await GetDeletableResources(*client);
        if (found.resources.empty()) {
          KLOG_V(2) << "\"no resources reported by discovery\" attempt=" << attempt;
          continue;
        }
        keep_failed(found);
      }
      KLOG_V(2) << "\"syncing garbage collector with updated resources from discovery\" "
                   "attempt="
                << attempt << " diff=\"" << Diff(old_resources, found.resources) << "\"";
      mapper_ = found.mapper;
      KLOG_V(4) << "\"reset restmapper\"";
      std::vector<client::ApiResource> resources;
      for (const auto& [gvr, r] : found.resources) resources.push_back(r);
      monitors_->Sync(resources);
      // Informers start only after the shared ones did, so that no controller gets events
      // before its handlers are in place.
      while (!informers_started->load()) co_await Sleep(std::chrono::milliseconds(100));
      monitors_->StartNew();
      KLOG_V(4) << "\"resynced monitors\"";
      // Caches get a sync period to fill before discovery is asked again; informers keep
      // trying meanwhile, and the workers stay paused.
      const bool synced = co_await WaitForMonitorsSynced(period);
      if (synced) break;
      KLOG_ERROR << "timed out waiting for dependency graph builder sync during GC sync "
                    "(attempt "
                 << attempt << ")";
    }
    old_resources = found.resources;
    paused_ = false;
    KLOG_V(2) << "\"synced garbage collector\"";
    co_await Sleep(period);
  }
}

}  // namespace controller::garbagecollector
