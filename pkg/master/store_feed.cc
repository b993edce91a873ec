#include "pkg/master/store_feed.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "pkg/util/log.h"

namespace master {
namespace {

namespace asio = boost::asio;
using nlohmann::json;

Awaitable<void> Pause(std::chrono::milliseconds d) {
  asio::steady_timer timer(co_await asio::this_coro::executor, d);
  boost::system::error_code ec;
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

// Lists the store into the view; the list's revision, or nothing when it failed.
Awaitable<std::optional<std::string>> List(std::shared_ptr<registry::Store> store,
                                           const FeedHandlers* handlers) {
  registry::ListOptions all;
  auto listed = co_await store->List("", all);
  if (!listed) {
    KLOG_WARNING << "listing " << store->Spec().plural << ": " << listed.error().message;
    co_return std::nullopt;
  }
  std::vector<json> objects;
  objects.reserve(listed->items.size());
  for (const auto& item : listed->items) objects.push_back(registry::Parse(*item));
  handlers->replace(objects);
  co_return std::to_string(listed->revision);
}

Awaitable<void> Follow(std::shared_ptr<registry::Store> store, FeedHandlers handlers,
                       genericserver::Lifecycle* lifecycle) {
  while (!lifecycle->ShutdownInitiated()) {
    auto revision = co_await List(store, &handlers);
    if (!revision) {
      co_await Pause(std::chrono::seconds(1));
      continue;
    }
    registry::ListOptions from;
    from.resource_version = *revision;
    auto watcher = co_await store->Watch("", from);
    if (!watcher) {
      KLOG_WARNING << "watching " << store->Spec().plural << ": " << watcher.error().message;
    } else {
      std::shared_ptr<storage::Watcher> w = std::move(*watcher);
      const uint64_t id = lifecycle->OnCloseStreams([w] { w->Stop(); });
      while (auto event = co_await w->Next()) {
        using Type = storage::WatchEvent::Type;
        if (event->type == Type::kError) break;
        if (event->type == Type::kBookmark || !event->object) continue;
        const json object = registry::Parse(*event->object);
        if (event->type == Type::kDeleted) {
          handlers.remove(object);
        } else {
          handlers.upsert(object);
        }
      }
      lifecycle->Unregister(id);
    }
    if (!lifecycle->ShutdownInitiated()) co_await Pause(std::chrono::milliseconds(200));
  }
}

}  // namespace

void StartStoreFeed(std::shared_ptr<registry::Store> store, FeedHandlers handlers,
                    genericserver::Lifecycle& lifecycle, asio::io_context& io) {
  asio::co_spawn(asio::make_strand(io), Follow(std::move(store), std::move(handlers), &lifecycle),
                 asio::detached);
}

}  // namespace master
