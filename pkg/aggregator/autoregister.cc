#include "pkg/aggregator/autoregister.h"

#include <map>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "pkg/aggregator/priority.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/util/log.h"

namespace aggregator {
namespace {

using nlohmann::json;
namespace asio = boost::asio;

struct Wanted {
  json spec;
  std::string label;  // "onstart" or "true"
};

std::map<std::string, Wanted> Desired(const std::vector<endpoints::APIGroupInfo>& groups,
                                      const std::set<std::string>& builtin) {
  std::map<std::string, Wanted> out;
  for (const endpoints::APIGroupInfo& info : groups) {
    const std::string& group = info.group.name;
    for (const std::string& version : info.group.versions) {
      const bool static_version = builtin.contains(group + "/" + version);
      json spec = {{"group", group}, {"version", version}};
      if (static_version) {
        spec["groupPriorityMinimum"] = GroupPriority(group);
        spec["versionPriority"] = VersionPriority(group, version);
      } else {
        spec["groupPriorityMinimum"] = 1000;
        spec["versionPriority"] = 100;
      }
      out[version + "." + group] = Wanted{std::move(spec), static_version ? "onstart" : "true"};
    }
  }
  return out;
}

std::string Label(const json& apiservice) {
  const json meta = apiservice.value("metadata", json::object());
  const json labels = meta.value("labels", json::object());
  auto it = labels.find(kAutomanagedLabel);
  return it != labels.end() && it->is_string() ? it->get<std::string>() : "";
}

// Whether the stored spec says what `wanted` does (a Local APIService with its priorities).
bool Matches(const json& apiservice, const json& wanted) {
  const json spec = apiservice.value("spec", json::object());
  if (spec.contains("service") && !spec["service"].is_null()) return false;
  for (const auto& [key, value] : wanted.items()) {
    if (spec.value(key, json()) != value) return false;
  }
  return true;
}

class Registrar {
 public:
  Registrar(std::shared_ptr<registry::Store> apiservices,
            std::function<std::vector<endpoints::APIGroupInfo>()> groups,
            std::set<std::string> builtin, std::function<bool()> dynamic_synced,
            genericserver::Lifecycle& lifecycle)
      : apiservices_(std::move(apiservices)),
        groups_(std::move(groups)),
        builtin_(std::move(builtin)),
        dynamic_synced_(std::move(dynamic_synced)),
        lifecycle_(lifecycle) {}

  // One pass: creates, corrects and deletes what it manages. On start, "onstart" ones are
  // reconciled too; afterwards only "true" ones are.
  Awaitable<std::expected<void, std::string>> Sync(bool start) {
    const std::map<std::string, Wanted> desired = Desired(groups_(), builtin_);
    registry::ListOptions all;
    auto listed = co_await apiservices_->List("", all);
    if (!listed) co_return std::unexpected(listed.error().message);
    std::map<std::string, json> existing;
    for (const auto& item : listed->items) {
      json apiservice = registry::Parse(*item);
      const std::string name = registry::MetaString(apiservice, "name");
      existing[name] = std::move(apiservice);
    }
    for (const auto& [name, wanted] : desired) {
      if (!start && wanted.label == "onstart") continue;
      auto it = existing.find(name);
      if (it == existing.end()) {
        co_await Create(name, wanted);
      } else if (!Label(it->second).empty() &&
                 (!Matches(it->second, wanted.spec) || Label(it->second) != wanted.label)) {
        co_await Correct(name, wanted);
      }
    }
    for (const auto& [name, apiservice] : existing) {
      const std::string label = Label(apiservice);
      // CRD ones are deleted only once the CRDs are served (see Follow).
      const bool managed = start ? label == "onstart" : label == "true";
      if (managed && !desired.contains(name)) {
        KLOG_V(2) << "deleting APIService " << name << ": its group-version is not served";
        co_await Delete(name);
      }
    }
    fingerprint_ = Fingerprint(desired);
    co_return std::expected<void, std::string>();
  }

  // Once the CRDs are served, re-syncs whenever the served group-versions change, until
  // shutdown.
  Awaitable<void> Follow() {
    bool followed = false;
    auto executor = co_await asio::this_coro::executor;
    while (!lifecycle_.ShutdownInitiated()) {
      asio::steady_timer timer(executor, std::chrono::seconds(1));
      boost::system::error_code ec;
      co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      if (!dynamic_synced_()) continue;
      if (followed && Fingerprint(Desired(groups_(), builtin_)) == fingerprint_) continue;
      KLOG_V(2) << "the chain's group-versions changed: syncing Local APIServices";
      auto synced = co_await Sync(false);
      if (!synced) KLOG_WARNING << "registering local APIServices: " << synced.error();
      followed = synced.has_value();
    }
  }

 private:
  static std::string Fingerprint(const std::map<std::string, Wanted>& desired) {
    std::string out;
    for (const auto& [name, wanted] : desired) out += name + wanted.spec.dump() + "\n";
    return out;
  }

  Awaitable<void> Create(const std::string& name, const Wanted& wanted) {
    json apiservice = {
        {"apiVersion", "apiregistration.k8s.io/v1"},
        {"kind", "APIService"},
        {"metadata", {{"name", name}, {"labels", {{kAutomanagedLabel, wanted.label}}}}},
        {"spec", wanted.spec}};
    registry::WriteOptions options;
    auto created = co_await apiservices_->Create("", std::move(apiservice), options);
    if (!created && created.error().code != 409) {
      KLOG_WARNING << "creating APIService " << name << ": " << created.error().message;
    }
  }

  Awaitable<void> Correct(const std::string& name, const Wanted& wanted) {
    registry::UpdateFunc update = [wanted](const json* old) -> Awaitable<registry::Result<json>> {
      if (!old) co_return std::unexpected(apimachinery::NewNotFound({}, ""));
      json next = *old;
      next["spec"] = wanted.spec;
      next["metadata"]["labels"][kAutomanagedLabel] = wanted.label;
      co_return next;
    };
    registry::WriteOptions options;
    auto updated = co_await apiservices_->Update("", name, update, options,
                                                 apiservices_->Spec().strategy.get());
    if (!updated) KLOG_WARNING << "updating APIService " << name << ": " << updated.error().message;
  }

  Awaitable<void> Delete(const std::string& name) {
    registry::DeleteOptions options;
    auto deleted = co_await apiservices_->Delete("", name, options);
    if (!deleted && deleted.error().code != 404) {
      KLOG_WARNING << "deleting APIService " << name << ": " << deleted.error().message;
    }
  }

  std::shared_ptr<registry::Store> apiservices_;
  std::function<std::vector<endpoints::APIGroupInfo>()> groups_;
  std::set<std::string> builtin_;
  std::function<bool()> dynamic_synced_;
  genericserver::Lifecycle& lifecycle_;
  std::string fingerprint_;
};

}  // namespace

genericserver::PostStartHookFunc AutoRegister(
    std::shared_ptr<registry::Store> apiservices,
    std::function<std::vector<endpoints::APIGroupInfo>()> groups, std::set<std::string> builtin,
    std::function<bool()> dynamic_synced, genericserver::Lifecycle& lifecycle) {
  return [apiservices, groups, builtin, dynamic_synced,
          &lifecycle]() -> Awaitable<std::expected<void, std::string>> {
    auto registrar =
        std::make_shared<Registrar>(apiservices, groups, builtin, dynamic_synced, lifecycle);
    auto synced = co_await registrar->Sync(true);
    if (!synced) co_return std::unexpected("registering local APIServices: " + synced.error());
    auto follow = [registrar]() -> Awaitable<void> { co_await registrar->Follow(); };
    // The registrar's passes run one at a time, on a strand of their own.
    auto strand = asio::make_strand(co_await asio::this_coro::executor);
    asio::co_spawn(strand, std::move(follow), [](std::exception_ptr e) {
      if (!e) return;
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& ex) {
        KLOG_ERROR << "the local APIService registration stopped: " << ex.what();
      }
    });
    co_return std::expected<void, std::string>();
  };
}

}  // namespace aggregator
