#include "pkg/controller/resourcequota/resource_quota_controller.h"

#include <map>
#include <set>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "pkg/client/discovery/discovery.h"
#include "pkg/controller/object.h"
#include "pkg/controller/resourcequota/object_count.h"
#include "pkg/controller/resourcequota/quota_status.h"
#include "pkg/controller/resourcequota/registry.h"
#include "pkg/controller/resourcequota/update_filter.h"
#include "pkg/controller/resourcequota/usage.h"
#include "pkg/controller/worker.h"
#include "pkg/util/duration.h"
#include "pkg/util/log.h"

namespace controller::resourcequota {

namespace net = boost::asio;
using nlohmann::json;

namespace {

const client::GroupVersionResource kQuotas{"", "v1", "resourcequotas"};
const GroupResource kQuotasGR{"", "resourcequotas"};
constexpr auto kDiscoveryPeriod = std::chrono::seconds(30);
// How soon a quota is tried again while an informer it needs has not listed yet, or while
// another sync runs discovery or syncs the same quota.
constexpr auto kRetryDelay = std::chrono::milliseconds(100);

std::string NamespaceOf(const json& o) { return Meta(o, "namespace"); }
std::string VersionOf(const json& o) { return Meta(o, "resourceVersion"); }

std::set<std::string> Names(const json& list) {
  std::set<std::string> out;
  if (!list.is_object()) return out;
  for (const auto& [name, value] : list.items()) out.insert(name);
  return out;
}

class QuotaController : public std::enable_shared_from_this<QuotaController> {
 public:
  explicit QuotaController(ControllerContext& ctx)
      : strand_(net::make_strand(ctx.io)),
        api_(ctx.client_for("resourcequota-controller")),
        informers_(ctx.informers),
        quotas_(ctx.informers->ForResource(kQuotas)),
        queue_(workqueue::Queue::New(strand_)),
        priority_(workqueue::Queue::New(strand_)),
        resync_(ctx.options.resource_quota_sync_period),
        registry_(Registry::Core()) {}

  void Start(int workers);

 private:
  using Strand = workqueue::Strand;
  using Clock = std::chrono::steady_clock;

  // Runs `f(controller)` on the strand, if the controller still exists.
  template <class F>
  static void Post(const std::weak_ptr<QuotaController>& weak, const Strand& strand, F f) {
    net::post(strand, [weak, f = std::move(f)] {
      if (auto self = weak.lock()) f(*self);
    });
  }

  // Strand: queue a quota added or whose spec.hard changed (upstream's addQuota).
  void AddQuota(const json& quota);
  // Strand: queue the quotas of `ns` that track a resource of `gr`.
  void Replenish(const GroupResource& gr, const std::string& ns);
  // Strand: every quota, on the primary queue.
  void EnqueueAll();
  // Strand: the quota of `key` as the informer has it, or as this controller last wrote it
  // while the informer has not caught up.
  client::ObjectPtr Cached(const std::string& key);
  // Strand: the informer that lists `gr`, made (and started) on first use.
  std::shared_ptr<client::SharedInformer> Monitor(const GroupResource& gr);
  // Strand: evaluators for the `count/` resources of `unknown` that discovery finds.
  // false while another sync runs discovery.
  Awaitable<bool> ResolveCountResources(std::set<GroupResource> unknown);
  Awaitable<SyncResult> Sync(std::shared_ptr<workqueue::Queue> queue, std::string key);
  Awaitable<void> ResyncLoop();

  Strand strand_;
  std::shared_ptr<client::RestClient> api_;
  std::shared_ptr<client::SharedInformerFactory> informers_;
  std::shared_ptr<client::SharedInformer> quotas_;
  std::shared_ptr<workqueue::Queue> queue_, priority_;
  std::chrono::milliseconds resync_;

  // Strand-owned.
  Registry registry_;
  std::map<GroupResource, std::shared_ptr<client::SharedInformer>> monitors_;
  // Quotable resources from the last discovery, and when it ran.
  std::map<GroupResource, client::GroupVersionResource> quotable_;
  std::optional<Clock::time_point> discovered_at_;
  // The resources of the object count evaluators added for `count/` names, watched
  // metadata-only.
  std::map<GroupResource, client::GroupVersionResource> dynamic_;
  bool discovering_ = false;
  std::set<std::string> syncing_;
  // Per quota, the resourceVersion a status write replaced and the object it made: until
  // the informer has the write, a sync starts from the written object (rather than write
  // again from the stale one and fail with a conflict).
  struct Written {
    std::string replaced_version;
    client::ObjectPtr object;
  };
  std::map<std::string, Written> written_;
};

void QuotaController::AddQuota(const json& quota) {
  const std::string key = client::KeyOf(quota);
  const json& status = Field(quota, "status");
  if (!SemanticEqual(Field(Field(quota, "spec"), "hard"), Field(status, "hard"))) {
    priority_->Add(key);
    return;
  }
  const json& used = Field(status, "used");
  for (const std::string& name : Names(Field(status, "hard"))) {
    if ((!used.is_object() || !used.contains(name)) && registry_.Measures(name)) {
      priority_->Add(key);
      return;
    }
  }
  queue_->Add(key);
}

void QuotaController::Replenish(const GroupResource& gr, const std::string& ns) {
  EvaluatorPtr evaluator = registry_.Get(gr);
  if (!evaluator) return;
  for (const client::ObjectPtr& quota : quotas_->ByIndex(client::kNamespaceIndex, ns)) {
    const std::set<std::string> tracked = Names(Field(Field(*quota, "status"), "hard"));
    if (!evaluator->MatchingResources(tracked).empty()) queue_->Add(client::KeyOf(*quota));
  }
}

void QuotaController::EnqueueAll() {
  for (const client::ObjectPtr& quota : quotas_->List()) queue_->Add(client::KeyOf(*quota));
  KLOG_V(4) << "\"Resource quota controller queued all resource quota for full calculation of "
               "usage\"";
}

client::ObjectPtr QuotaController::Cached(const std::string& key) {
  client::ObjectPtr quota = quotas_->Get(key);
  auto it = written_.find(key);
  if (it == written_.end()) return quota;
  if (quota && VersionOf(*quota) == it->second.replaced_version) return it->second.object;
  written_.erase(it);  // the informer has the write, or a later change, or the deletion
  return quota;
}

std::shared_ptr<client::SharedInformer> QuotaController::Monitor(const GroupResource& gr) {
  if (auto it = monitors_.find(gr); it != monitors_.end()) return it->second;
  std::shared_ptr<client::SharedInformer> informer;
  if (gr == kQuotasGR) {
    informer = quotas_;  // its handlers replenish already (Start)
  } else {
    if (auto it = dynamic_.find(gr); it != dynamic_.end()) {
      informer = informers_->MetadataForResource(it->second);
    } else {
      informer = informers_->ForResource(client::GroupVersionResource{gr.group, "v1", gr.resource});
    }
    std::weak_ptr<QuotaController> weak = weak_from_this();
    const Strand strand = strand_;
    auto replenish = [weak, strand, gr](const client::ObjectPtr& o) {
      Post(weak, strand, [gr, ns = NamespaceOf(*o)](QuotaController& c) { c.Replenish(gr, ns); });
    };
    client::ResourceEventHandler handler;
    handler.on_add = replenish;
    handler.on_delete = replenish;
    handler.on_update = [replenish, gr](const client::ObjectPtr& old_object,
                                        const client::ObjectPtr& object) {
      if (old_object == object) return;  // a resync
      if (RequiresReplenishment(gr, *old_object, *object, std::chrono::system_clock::now())) {
        replenish(object);
      }
    };
    informer->AddEventHandler(std::move(handler));
    const client::GroupVersionResource& gvr = informer->gvr();
    KLOG_V(4) << "\"QuotaMonitor using a shared informer\" resource=\"" << gvr.group << "/"
              << gvr.version << ", Resource=" << gvr.resource << "\"";
  }
  informer->Start();
  monitors_[gr] = informer;
  return informer;
}

Awaitable<bool> QuotaController::ResolveCountResources(std::set<GroupResource> unknown) {
  if (discovering_) co_return false;
  const bool stale = !discovered_at_ || Clock::now() - *discovered_at_ >= kDiscoveryPeriod;
  if (stale) {
    discovering_ = true;
    auto discovered = co_await client::ServerPreferredResources(*api_);
    discovering_ = false;
    discovered_at_ = Clock::now();
    if (!discovered) {
      KLOG_ERROR << "\"failed to discover resources\" err=\"" << discovered.error().String()
                 << "\"";
    } else {
      quotable_.clear();
      for (const client::ApiResource& r : discovered->resources) {
        const GroupResource gr{r.gvr.group, r.gvr.resource};
        if (!r.namespaced || IsIgnoredResource(gr)) continue;
        if (!r.Supports("create") || !r.Supports("list") || !r.Supports("watch") ||
            !r.Supports("delete")) {
          continue;
        }
        quotable_[gr] = r.gvr;
      }
    }
  }
  for (const GroupResource& gr : unknown) {
    auto it = quotable_.find(gr);
    if (it == quotable_.end()) continue;
    dynamic_[gr] = it->second;
    registry_.Add(std::make_shared<ObjectCountEvaluator>(gr, ""));
    KLOG_INFO << "\"QuotaMonitor created object count evaluator\" resource=\"" << gr.String()
              << "\"";
  }
  co_return true;
}

Awaitable<SyncResult> QuotaController::Sync(std::shared_ptr<workqueue::Queue> queue,
                                            std::string key) {
  const auto start = Clock::now();
  client::ObjectPtr quota = Cached(key);
  if (!quota) {
    KLOG_INFO << "\"Resource quota has been deleted\" key=\"" << key << "\"";
    co_return SyncResult();
  }
  if (syncing_.contains(key)) {
    queue->AddAfter(key, kRetryDelay);
    co_return SyncResult();
  }
  syncing_.insert(key);
  struct Done {
    std::set<std::string>& syncing;
    const std::string& key;
    ~Done() { syncing.erase(key); }
  } done{syncing_, key};

  const json& spec = Field(*quota, "spec");
  const std::set<std::string> hard = Names(Field(spec, "hard"));
  std::set<GroupResource> unknown = registry_.UnknownCountResources(hard);
  if (!unknown.empty()) {
    const bool resolved = co_await ResolveCountResources(unknown);
    if (!resolved) {
      queue->AddAfter(key, kRetryDelay);
      co_return SyncResult();
    }
    // Resources discovery does not serve yet: look again once it may have changed.
    if (!registry_.UnknownCountResources(hard).empty()) queue->AddAfter(key, kDiscoveryPeriod);
    // The quota may have changed or gone meanwhile.
    quota = Cached(key);
    if (!quota) co_return SyncResult();
  }

  // The evaluators this quota needs, and their informers' caches.
  std::vector<EvaluatorPtr> evaluators;
  bool synced = true;
  for (const EvaluatorPtr& e : registry_.List()) {
    if (e->MatchingResources(hard).empty()) continue;
    evaluators.push_back(e);
    synced = Monitor(e->group_resource())->HasSynced() && synced;
  }
  if (!synced) {
    queue->AddAfter(key, kRetryDelay);
    co_return SyncResult();
  }
  ListFunc list = [this](const GroupResource& gr, const std::string& ns) -> Objects {
    auto it = monitors_.find(gr);
    if (it == monitors_.end()) return {};
    return it->second->ByIndex(client::kNamespaceIndex, ns);
  };
  const json& current = *quota;
  const QuotaUsage usage =
      CalculateUsage(NamespaceOf(current), ScopeRequirements(Field(current, "spec")), hard,
                     evaluators, list, std::chrono::system_clock::now());
  std::optional<json> updated = UpdatedQuota(current, usage.used);
  if (updated) {
    const auto [ns, name] = client::SplitKey(key);
    const std::string path = client::ResourcePath(kQuotas, ns, name, "status");
    auto put = co_await api_->Put(path, *updated);
    if (!put) {
      written_.erase(key);
      if (put.error().IsNotFound()) co_return SyncResult();
      co_return std::unexpected(put.error().String());
    }
    auto object = std::make_shared<const json>(std::move(*put));
    written_[key] = Written{VersionOf(current), std::move(object)};
  }
  KLOG_V(4) << "\"Finished syncing resource quota\" key=\"" << key << "\" duration=\""
            << util::FormatDuration(Clock::now() - start) << "\"";
  co_return SyncResult();
}

Awaitable<void> QuotaController::ResyncLoop() {
  const std::vector<std::shared_ptr<client::SharedInformer>> wait_for = {quotas_};
  co_await client::WaitForCacheSync(wait_for);
  if (resync_.count() <= 0) {
    KLOG_INFO << "\"periodic quota controller resync disabled\"";
    co_return;
  }
  net::steady_timer timer(strand_);
  while (true) {
    EnqueueAll();
    timer.expires_after(resync_);
    boost::system::error_code ec;
    co_await timer.async_wait(net::redirect_error(net::use_awaitable, ec));
  }
}

void QuotaController::Start(int workers) {
  KLOG_INFO << "\"Starting resource quota controller\"";
  std::weak_ptr<QuotaController> weak = weak_from_this();
  const Strand strand = strand_;
  client::ResourceEventHandler handler;
  handler.on_add = [weak, strand](const client::ObjectPtr& q) {
    Post(weak, strand, [q](QuotaController& c) {
      c.AddQuota(*q);
      c.Replenish(kQuotasGR, NamespaceOf(*q));
    });
  };
  handler.on_update = [weak, strand](const client::ObjectPtr& old_quota,
                                     const client::ObjectPtr& quota) {
    // Only spec.hard drives a sync: status changes are this controller's own.
    if (SemanticEqual(Field(Field(*old_quota, "spec"), "hard"),
                      Field(Field(*quota, "spec"), "hard"))) {
      return;
    }
    Post(weak, strand, [quota](QuotaController& c) { c.AddQuota(*quota); });
  };
  handler.on_delete = [weak, strand](const client::ObjectPtr& q) {
    Post(weak, strand, [q](QuotaController& c) {
      c.queue_->Add(client::KeyOf(*q));
      c.Replenish(kQuotasGR, NamespaceOf(*q));
    });
  };
  quotas_->AddEventHandler(std::move(handler));

  auto self = shared_from_this();
  SyncFunc primary = [self](const std::string& key) { return self->Sync(self->queue_, key); };
  SyncFunc priority = [self](const std::string& key) { return self->Sync(self->priority_, key); };
  RunWorkers(queue_, workers, "resource quota", std::move(primary), {quotas_});
  RunWorkers(priority_, workers, "resource quota priority", std::move(priority), {quotas_});
  net::co_spawn(
      strand_, [self]() -> Awaitable<void> { co_await self->ResyncLoop(); }, net::detached);
}

}  // namespace

std::expected<InitResult, std::string> StartResourceQuotaController(ControllerContext& ctx) {
  auto controller = std::make_shared<QuotaController>(ctx);
  controller->Start(std::max(1, ctx.options.concurrent_resource_quota_syncs));
  return InitResult{true};
}

}  // namespace controller::resourcequota
