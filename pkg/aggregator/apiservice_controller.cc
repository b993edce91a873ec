#include "pkg/aggregator/apiservice_controller.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "pkg/aggregator/available_check.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/util/log.h"

namespace aggregator {
namespace {

using nlohmann::json;
using transport::Clock;
namespace asio = boost::asio;

constexpr auto kAvailableEvery = std::chrono::seconds(10);
constexpr auto kUnavailableEvery = std::chrono::seconds(5);
constexpr auto kTick = std::chrono::milliseconds(250);

Awaitable<void> Sleep(Clock::duration d) {
  asio::steady_timer timer(co_await asio::this_coro::executor, d);
  boost::system::error_code ec;
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

void LogFailure(std::string_view what, std::exception_ptr e) {
  if (!e) return;
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    KLOG_ERROR << what << " stopped: " << ex.what();
  }
}

// Upstream's SetAPIServiceCondition: the transition time changes with the status only.
void SetAvailable(json& apiservice, const std::string& status, const std::string& reason,
                  const std::string& message) {
  json& conditions = apiservice["status"]["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  json condition = {{"type", "Available"},
                    {"status", status},
                    {"lastTransitionTime", registry::NowTimestamp()},
                    {"reason", reason},
                    {"message", message}};
  for (json& c : conditions) {
    if (c.is_object() && c.value("type", "") == "Available") {
      if (c.value("status", "") == status && c.contains("lastTransitionTime")) {
        condition["lastTransitionTime"] = c["lastTransitionTime"];
      }
      c = std::move(condition);
      return;
    }
  }
  conditions.push_back(std::move(condition));
}

}  // namespace

APIServiceController::APIServiceController(std::shared_ptr<registry::Store> apiservices,
                                           APIServiceTable& table, storage::StorageFactory& storage,
                                           ServiceResolver resolve,
                                           std::shared_ptr<const transport::TLSClient> check_tls,
                                           genericserver::Lifecycle& lifecycle)
    : apiservices_(std::move(apiservices)),
      table_(table),
      storage_(storage),
      resolve_(std::move(resolve)),
      check_tls_(std::move(check_tls)),
      lifecycle_(lifecycle) {}

void APIServiceController::Enqueue(const std::string& name) {
  std::lock_guard lock(mu_);
  queued_.insert(name);
}

genericserver::PostStartHookFunc APIServiceController::Start() {
  std::shared_ptr<APIServiceController> self = shared_from_this();
  return [self]() -> Awaitable<std::expected<void, std::string>> {
    auto strand = asio::make_strand(co_await asio::this_coro::executor);
    // The lambda keeps the controller alive while it runs.
    auto run = [self]() -> Awaitable<void> { co_await self->Run(); };
    asio::co_spawn(strand, std::move(run),
                   [](std::exception_ptr e) { LogFailure("the APIService controller", e); });
    co_return std::expected<void, std::string>();
  };
}

bool APIServiceController::Discovered() const {
  std::lock_guard lock(mu_);
  return registered_ && first_checks_.empty();
}

Awaitable<void> APIServiceController::Run() {
  std::expected<std::string, std::string> synced;
  while (!(synced = co_await Sync())) {
    KLOG_WARNING << "listing APIServices: " << synced.error();
    if (lifecycle_.ShutdownInitiated()) co_return;
    co_await Sleep(std::chrono::seconds(1));
  }
  {
    std::lock_guard lock(mu_);
    first_checks_ = queued_;
  }
  registered_ = true;
  std::shared_ptr<APIServiceController> self = shared_from_this();
  auto executor = co_await asio::this_coro::executor;  // the strand
  auto check = [self]() -> Awaitable<void> { co_await self->CheckLoop(); };
  asio::co_spawn(executor, std::move(check),
                 [](std::exception_ptr e) { LogFailure("the APIService availability checks", e); });
  co_await Watch(*synced);
}

Awaitable<std::expected<std::string, std::string>> APIServiceController::Sync() {
  registry::ListOptions all;
  auto listed = co_await apiservices_->List("", all);
  if (!listed) co_return std::unexpected(listed.error().message);
  table_.Clear();
  for (const auto& item : listed->items) {
    const json apiservice = registry::Parse(*item);
    table_.Upsert(apiservice);
    Enqueue(registry::MetaString(apiservice, "name"));
  }
  co_return std::to_string(listed->revision);
}

Awaitable<void> APIServiceController::Watch(std::string revision) {
  while (!lifecycle_.ShutdownInitiated()) {
    registry::ListOptions options;
    options.resource_version = revision;
    auto watcher = co_await apiservices_->Watch("", options);
    if (!watcher) KLOG_WARNING << "watching APIServices: " << watcher.error().message;
    if (watcher) {
      std::shared_ptr<storage::Watcher> w = std::move(*watcher);
      const uint64_t id = lifecycle_.OnCloseStreams([w] { w->Stop(); });
      while (auto event = co_await w->Next()) {
        if (event->type == storage::WatchEvent::Type::kError) break;
        if (event->type == storage::WatchEvent::Type::kBookmark || !event->object) continue;
        revision = std::to_string(event->object->revision);
        const json apiservice = registry::Parse(*event->object);
        const std::string name = registry::MetaString(apiservice, "name");
        if (event->type == storage::WatchEvent::Type::kDeleted) {
          table_.Remove(name);
          continue;
        }
        APIServiceInfoPtr before = table_.Get(name);
        table_.Upsert(apiservice);
        APIServiceInfoPtr after = table_.Get(name);
        // A change of its spec (not the status this controller wrote) is checked at once.
        if (!before || before->spec != after->spec || after->available_status.empty()) {
          Enqueue(name);
        }
      }
      lifecycle_.Unregister(id);
    }
    if (lifecycle_.ShutdownInitiated()) break;
    co_await Sleep(std::chrono::milliseconds(200));
    auto synced = co_await Sync();
    if (synced) revision = *synced;
  }
}

Awaitable<void> APIServiceController::CheckLoop() {
  auto executor = co_await asio::this_coro::executor;
  std::shared_ptr<APIServiceController> self = shared_from_this();
  checking_ = true;
  while (!lifecycle_.ShutdownInitiated()) {
    const Clock::time_point now = Clock::now();
    const std::vector<APIServiceInfoPtr> all = table_.All();
    {
      // Forget APIServices that are gone.
      std::set<std::string> names;
      for (const APIServiceInfoPtr& info : all) names.insert(info->name);
      std::lock_guard lock(mu_);
      std::erase_if(first_checks_, [&names](const std::string& n) { return !names.contains(n); });
      std::erase_if(next_check_, [&names](const auto& e) { return !names.contains(e.first); });
      std::erase_if(queued_, [&names](const std::string& n) { return !names.contains(n); });
    }
    for (const APIServiceInfoPtr& info : all) {
      {
        std::lock_guard lock(mu_);
        if (in_flight_.contains(info->name)) continue;  // still queued, if it was
        auto due = next_check_.find(info->name);
        const bool overdue = due == next_check_.end() || due->second <= now;
        if (!queued_.contains(info->name) && !overdue) continue;
        queued_.erase(info->name);
        in_flight_.insert(info->name);
        next_check_[info->name] = now + (info->available ? kAvailableEvery : kUnavailableEvery);
      }
      auto check = [self, info]() -> Awaitable<void> { co_await self->Check(info); };
      asio::co_spawn(executor, std::move(check), [self, name = info->name](std::exception_ptr e) {
        LogFailure("checking APIService " + name, e);
        std::lock_guard lock(self->mu_);
        self->in_flight_.erase(name);
        self->first_checks_.erase(name);
      });
    }
    co_await Sleep(kTick);
  }
}

Awaitable<void> APIServiceController::Check(APIServiceInfoPtr info) {
  if (!info->service) {
    co_await Record(*info, "True", "Local", "Local APIServices are always available");
    co_return;
  }
  Availability result =
      co_await CheckAvailability(storage_, resolve_, check_tls_, info, table_.OpenAPI(info->name),
                                 table_.OpenAPIV2(info->name));
  if (result.resources) table_.SetResources(info->name, std::move(*result.resources));
  if (result.status == "True") {
    table_.SetOpenAPI(info->name, result.openapi);
    table_.SetOpenAPIV2(info->name, result.openapi_v2);
  }
  co_await Record(*info, result.status, result.reason, result.message);
}

Awaitable<void> APIServiceController::Record(const APIServiceInfo& info, std::string status,
                                             std::string reason, std::string message) {
  if (info.available_status == status && info.available_reason == reason &&
      info.available_message == message) {
    co_return;
  }
  if (info.available_status != status) {
    KLOG_INFO << "APIService " << info.name << " Available=" << status << " (" << reason
              << "): " << message;
  }
  registry::UpdateFunc update = [status, reason,
                                 message](const json* old) -> Awaitable<registry::Result<json>> {
    if (!old) co_return std::unexpected(apimachinery::NewNotFound({}, ""));
    json next = *old;
    SetAvailable(next, status, reason, message);
    co_return next;
  };
  const registry::Strategy* strategy =
      apiservices_->Spec().FindSubresource("status")->strategy.get();
  registry::WriteOptions options;
  auto updated = co_await apiservices_->Update("", info.name, update, options, strategy);
  if (!updated && updated.error().code != 404) {
    KLOG_WARNING << "updating the status of APIService " << info.name << ": "
                 << updated.error().message;
  }
}

}  // namespace aggregator
