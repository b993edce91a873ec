#include "pkg/apiextensions/controller.h"

#include <cassert>
#include <map>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "pkg/apiextensions/naming.h"
#include "pkg/apiextensions/registry/crd.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/util/log.h"

namespace apiextensions {
namespace {

using nlohmann::json;
namespace asio = boost::asio;

std::string Name(const json& crd) { return crd["metadata"].value("name", ""); }

// What naming needs of another CRD: its group and accepted names (not its schemas).
json NamingSummary(const json& crd) {
  json summary = {{"spec", {{"group", crd["spec"].value("group", "")}}}};
  if (crd.contains("status") && crd["status"].contains("acceptedNames")) {
    summary["status"]["acceptedNames"] = crd["status"]["acceptedNames"];
  }
  return summary;
}

// Every coroutine of a controller runs on its strand (asserted where state changes), so
// that reconciling one CRD and the next never interleave across threads.
class Controller : public std::enable_shared_from_this<Controller> {
 public:
  Controller(std::shared_ptr<registry::Store> crds, CustomResourceServing& serving,
             genericserver::Lifecycle& lifecycle, asio::strand<asio::any_io_executor> strand,
             std::shared_ptr<CRDControllerProgress> progress)
      : crds_(std::move(crds)),
        serving_(serving),
        lifecycle_(lifecycle),
        strand_(std::move(strand)),
        progress_(std::move(progress)) {}

  // Lists until it can, then watches until the server stops.
  Awaitable<void> Start() {
    assert(strand_.running_in_this_thread());
    for (;;) {
      auto synced = co_await Sync();
      if (synced) {
        progress_->served = true;
        co_await Run(*synced);
        co_return;
      }
      KLOG_WARNING << "listing CustomResourceDefinitions: " << synced.error();
      if (lifecycle_.ShutdownInitiated()) co_return;
      co_await Sleep(std::chrono::seconds(1));
    }
  }

  // Lists and reconciles every CRD; the list's resourceVersion, to watch from.
  Awaitable<std::expected<std::string, std::string>> Sync() {
    registry::ListOptions all;
    auto listed = co_await crds_->List("", all);
    if (!listed) co_return std::unexpected(listed.error().message);
    std::map<std::string, json> seen;
    for (const auto& item : listed->items) {
      json crd = registry::Parse(*item);
      seen[Name(crd)] = crd;
    }
    {
      std::lock_guard lock(mu_);
      for (const auto& [name, summary] : known_) {
        if (!seen.contains(name)) serving_.Remove(name);
      }
      known_.clear();
      for (const auto& [name, crd] : seen) known_[name] = NamingSummary(crd);
    }
    progress_->listed = true;
    for (auto& [name, crd] : seen) co_await Reconcile(crd);
    co_return std::to_string(listed->revision);
  }

  // Watches from `revision` until the server stops, re-listing when the watch ends.
  Awaitable<void> Run(std::string revision) {
    while (!lifecycle_.ShutdownInitiated()) {
      registry::ListOptions options;
      options.resource_version = revision;
      auto watcher = co_await crds_->Watch("", options);
      if (!watcher)
        KLOG_WARNING << "watching CustomResourceDefinitions: " << watcher.error().message;
      if (watcher) {
        std::shared_ptr<storage::Watcher> w = std::move(*watcher);
        const uint64_t id = lifecycle_.OnCloseStreams([w] { w->Stop(); });
        KLOG_V(4) << "watching CustomResourceDefinitions from " << revision;
        while (auto event = co_await w->Next()) {
          KLOG_V(4) << "CustomResourceDefinition event "
                    << storage::WatchEventTypeName(event->type);
          if (event->type == storage::WatchEvent::Type::kError) break;
          if (event->type == storage::WatchEvent::Type::kBookmark || !event->object) continue;
          revision = std::to_string(event->object->revision);
          json crd = registry::Parse(*event->object);
          if (event->type == storage::WatchEvent::Type::kDeleted) {
            Forget(Name(crd));
          } else {
            {
              std::lock_guard lock(mu_);
              known_[Name(crd)] = NamingSummary(crd);
            }
            co_await Reconcile(crd);
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

 private:
  static Awaitable<void> Sleep(std::chrono::milliseconds d) {
    asio::steady_timer timer(co_await asio::this_coro::executor, d);
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }

  void Forget(const std::string& name) {
    std::lock_guard lock(mu_);
    known_.erase(name);
    served_.erase(name);
    serving_.Remove(name);
  }

  std::vector<json> Others(const std::string& name) {
    std::lock_guard lock(mu_);
    std::vector<json> out;
    for (const auto& [n, crd] : known_) {
      if (n != name) out.push_back(crd);
    }
    return out;
  }

  // Serves the CRD as it is now unless it is served so already (same generation, names and
  // termination).
  std::expected<void, std::string> EnsureServed(const json& crd) {
    const std::string name = Name(crd);
    const std::string key = crd["metadata"].value("generation", json(0)).dump() +
                            crd["status"].value("acceptedNames", json()).dump() +
                            (ConditionTrue(crd, "Terminating") ? "T" : "");
    {
      std::lock_guard lock(mu_);
      if (auto it = served_.find(name); it != served_.end() && it->second == key) return {};
    }
    auto served = serving_.Serve(crd);
    if (!served) return served;
    std::lock_guard lock(mu_);
    served_[name] = key;
    return {};
  }

  // Writes the status `change` makes (through the status subresource), unless unchanged.
  Awaitable<void> UpdateStatus(const std::string& name, std::function<void(json&)> change) {
    const registry::Strategy* status = crds_->Spec().FindSubresource("status")->strategy.get();
    registry::UpdateFunc update = [change](const json* old) -> Awaitable<registry::Result<json>> {
      if (!old) co_return std::unexpected(apimachinery::NewNotFound({}, ""));
      json next = *old;
      change(next);
      co_return next;
    };
    registry::WriteOptions options;
    auto updated = co_await crds_->Update("", name, update, options, status);
    if (!updated && updated.error().code != 404) {
      KLOG_WARNING << "updating the status of CustomResourceDefinition " << name << ": "
                   << updated.error().message;
    }
  }

  Awaitable<void> Reconcile(json crd) {
    assert(strand_.running_in_this_thread());
    const std::string name = Name(crd);
    KLOG_V(4) << "reconciling CustomResourceDefinition " << name;
    if (crd["metadata"].contains("deletionTimestamp")) {
      co_await Finalize(std::move(crd));
      co_return;
    }
    std::vector<json> others = Others(name);
    std::vector<const json*> pointers;
    for (const json& o : others) pointers.push_back(&o);
    NamingResult names = AcceptNames(crd, pointers);
    json next = crd;
    next["status"]["acceptedNames"] = names.accepted_names;
    const std::string now = registry::NowTimestamp();
    SetCondition(next, "NamesAccepted", names.accepted ? "True" : "False", names.reason,
                 names.message, now);
    bool established = ConditionTrue(crd, "Established");
    if (names.accepted || established) {
      if (auto served = EnsureServed(next); !served) {
        KLOG_WARNING << "serving CustomResourceDefinition " << name << ": " << served.error();
      } else if (!established) {
        SetCondition(next, "Established", "True", "InitialNamesAccepted",
                     "the initial names have been accepted", now);
      }
    } else {
      SetCondition(next, "Established", "False", "NotAccepted", "not all names are accepted", now);
    }
    if (next["status"] == crd["status"]) co_return;
    std::function<void(json&)> change = [status = next["status"]](json& object) {
      object["status"] = status;
    };
    co_await UpdateStatus(name, std::move(change));
  }

  // Deleting: creates stop, every custom resource is deleted, then the finalizer goes.
  Awaitable<void> Finalize(json crd) {
    const std::string name = Name(crd);
    const json& finalizers = crd["metadata"].value("finalizers", json::array());
    if (std::find(finalizers.begin(), finalizers.end(), kCleanupFinalizer) == finalizers.end()) {
      co_return;
    }
    if (ConditionTrue(crd, "Established")) (void)EnsureServed(crd);
    serving_.MarkTerminating(name);
    std::shared_ptr<registry::Store> instances = serving_.StorageStore(name);
    std::string failure;
    if (instances) {
      registry::DeleteOptions options;
      registry::ListOptions all;
      auto deleted = co_await instances->DeleteCollection("", all, options);
      if (!deleted) failure = "could not delete CustomResources: " + deleted.error().message;
      if (failure.empty()) {
        auto left = co_await instances->List("", all);
        if (!left) {
          failure = "could not confirm zero CustomResources remaining: " + left.error().message;
        } else if (!left->items.empty()) {
          failure = "could not confirm zero CustomResources remaining: " +
                    std::to_string(left->items.size()) + " remaining";
        }
      }
    }
    if (!failure.empty()) {
      const std::string now = registry::NowTimestamp();
      std::function<void(json&)> change = [failure, now](json& object) {
        SetCondition(object, "Terminating", "True", "InstanceDeletionCheck", failure, now);
      };
      co_await UpdateStatus(name, std::move(change));
      // Custom resources with finalizers of their own: look again shortly.
      auto self = shared_from_this();
      asio::co_spawn(
          strand_,
          [self, name]() -> Awaitable<void> {
            co_await Sleep(std::chrono::seconds(1));
            if (self->lifecycle_.ShutdownInitiated()) co_return;
            auto fresh = co_await self->crds_->Get("", name, "");
            if (fresh) co_await self->Reconcile(registry::Parse(**fresh));
          },
          asio::detached);
      co_return;
    }
    serving_.Remove(name);
    {
      std::lock_guard lock(mu_);
      served_.erase(name);
    }
    registry::UpdateFunc update = [](const json* old) -> Awaitable<registry::Result<json>> {
      if (!old) co_return std::unexpected(apimachinery::NewNotFound({}, ""));
      json next = *old;
      json& f = next["metadata"]["finalizers"];
      f.erase(std::remove(f.begin(), f.end(), json(kCleanupFinalizer)), f.end());
      co_return next;
    };
    registry::WriteOptions options;
    const registry::Strategy* main = crds_->Spec().strategy.get();
    auto updated = co_await crds_->Update("", name, update, options, main);
    if (!updated && updated.error().code != 404) {
      KLOG_WARNING << "removing the finalizer of CustomResourceDefinition " << name << ": "
                   << updated.error().message;
    }
  }

  std::shared_ptr<registry::Store> crds_;
  CustomResourceServing& serving_;
  genericserver::Lifecycle& lifecycle_;
  const asio::strand<asio::any_io_executor> strand_;
  const std::shared_ptr<CRDControllerProgress> progress_;
  std::mutex mu_;  // known_ and served_, read by naming from the serving path too
  std::map<std::string, json> known_;          // every CRD's NamingSummary, by name
  std::map<std::string, std::string> served_;  // what each CRD was served as
};

}  // namespace

genericserver::PostStartHookFunc StartCRDController(
    std::shared_ptr<registry::Store> crds, CustomResourceServing& serving,
    genericserver::Lifecycle& lifecycle, std::shared_ptr<CRDControllerProgress> progress) {
  return [crds, &serving, &lifecycle, progress]() -> Awaitable<std::expected<void, std::string>> {
    auto strand = asio::make_strand(co_await asio::this_coro::executor);
    auto controller = std::make_shared<Controller>(crds, serving, lifecycle, strand, progress);
    // The lambda keeps the controller alive for as long as it runs.
    auto run = [controller]() -> Awaitable<void> { co_await controller->Start(); };
    asio::co_spawn(strand, std::move(run), [](std::exception_ptr e) {
      if (!e) return;
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& ex) {
        KLOG_ERROR << "the CustomResourceDefinition controller stopped: " << ex.what();
      }
    });
    co_return std::expected<void, std::string>();
  };
}

}  // namespace apiextensions
