#include "pkg/genericserver/admission/stores.h"

#include <chrono>
#include <random>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

namespace admission {

void Stores::Add(std::shared_ptr<registry::Store> store) {
  const registry::ResourceSpec& spec = store->Spec();
  std::string resource = spec.group.empty() ? spec.plural : spec.plural + "." + spec.group;
  std::string kind = spec.GroupVersion() + "/" + spec.kind;
  std::lock_guard lock(mu_);
  kinds_[std::move(kind)] = store;
  stores_[std::move(resource)] = std::move(store);
}

std::shared_ptr<registry::Store> Stores::GetKind(std::string_view api_version,
                                                 std::string_view kind) const {
  const std::string key = std::string(api_version) + "/" + std::string(kind);
  std::lock_guard lock(mu_);
  auto it = kinds_.find(key);
  return it == kinds_.end() ? nullptr : it->second;
}

std::shared_ptr<registry::Store> Stores::Get(std::string_view resource) const {
  std::lock_guard lock(mu_);
  auto it = stores_.find(resource);
  return it == stores_.end() ? nullptr : it->second;
}

namespace {

namespace net = boost::asio;

std::chrono::milliseconds RetryInterval() {
  static thread_local std::mt19937 random{std::random_device{}()};
  return std::chrono::milliseconds(100 + std::uniform_int_distribution<int>(0, 99)(random));
}

}  // namespace

Awaitable<registry::Result<nlohmann::json>> Lookup(std::shared_ptr<registry::Store> store,
                                                   std::string ns, std::string name, int attempts) {
  // What a ready cache holds is read at once; what it lacks is looked for further.
  if (std::optional<storage::ObjectPtr> now = store->CachedGet(ns, name); now && *now) {
    co_return registry::Parse(**now);
  }
  auto got = co_await store->Get(ns, name, "0");
  for (int i = 0; i < attempts && !got && got.error().code == 404; ++i) {
    if (i > 0) {
      net::steady_timer pause(co_await net::this_coro::executor, RetryInterval());
      co_await pause.async_wait(net::use_awaitable);
    }
    got = co_await store->Get(ns, name, "");
  }
  if (!got) co_return std::unexpected(got.error());
  co_return registry::Parse(**got);
}

Awaitable<registry::Result<std::vector<nlohmann::json>>> ListCached(
    std::shared_ptr<registry::Store> store, std::string ns) {
  std::vector<nlohmann::json> out;
  // A ready cache is read at once; otherwise the list is asked for as resourceVersion "0".
  if (std::optional<storage::ListResult> now = store->CachedList(ns)) {
    out.reserve(now->items.size());
    for (const auto& item : now->items) out.push_back(registry::Parse(*item));
    co_return out;
  }
  registry::ListOptions cached;
  cached.resource_version = "0";
  auto listed = co_await store->List(std::move(ns), cached);
  if (!listed) co_return std::unexpected(listed.error());
  out.reserve(listed->items.size());
  for (const auto& item : listed->items) out.push_back(registry::Parse(*item));
  co_return out;
}

}  // namespace admission
