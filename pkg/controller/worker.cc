#include "pkg/controller/worker.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <nlohmann/json.hpp>

#include "pkg/util/log.h"

namespace controller {

namespace net = boost::asio;

void Enqueue(const std::shared_ptr<workqueue::Queue>& queue, std::string key) {
  net::post(queue->strand(), [queue, key = std::move(key)] { queue->Add(key); });
}

void EnqueueAfter(const std::shared_ptr<workqueue::Queue>& queue, std::string key,
                  std::chrono::milliseconds delay) {
  net::post(queue->strand(), [queue, key = std::move(key), delay] { queue->AddAfter(key, delay); });
}

std::chrono::milliseconds RequeueDelay(std::chrono::microseconds remaining) {
  const std::chrono::milliseconds day = std::chrono::hours(24);
  if (remaining >= day) return day;
  if (remaining.count() <= 0) return std::chrono::milliseconds(0);
  return std::chrono::ceil<std::chrono::milliseconds>(remaining);
}

void RunWorkers(std::shared_ptr<workqueue::Queue> queue, int workers, std::string name,
                SyncFunc sync, std::vector<std::shared_ptr<client::SharedInformer>> wait_for) {
  net::co_spawn(
      queue->strand(),
      [queue, workers, name = std::move(name), sync = std::move(sync),
       wait_for = std::move(wait_for)]() -> Awaitable<void> {
        KLOG_INFO << "Waiting for caches to sync for " << name;
        co_await client::WaitForCacheSync(wait_for);
        KLOG_INFO << "Caches are synced for " << name;
        for (int i = 0; i < workers; ++i) {
          net::co_spawn(
              queue->strand(),
              [queue, name, sync]() -> Awaitable<void> {
                while (true) {
                  std::optional<std::string> key = co_await queue->Get();
                  if (!key) co_return;
                  SyncResult result = co_await sync(*key);
                  if (result) {
                    queue->Forget(*key);
                  } else {
                    KLOG_ERROR << name << ": syncing " << *key << " failed: " << result.error();
                    queue->AddRateLimited(*key);
                  }
                  queue->Done(*key);
                }
              },
              net::detached);
        }
      },
      net::detached);
}

client::ResourceEventHandler EnqueueObjects(std::shared_ptr<workqueue::Queue> queue, bool deletes,
                                            std::function<bool(const nlohmann::json&)> accepts) {
  auto enqueue = [queue, accepts = std::move(accepts)](const client::ObjectPtr& o) {
    if (!accepts || accepts(*o)) Enqueue(queue, client::KeyOf(*o));
  };
  client::ResourceEventHandler handler;
  handler.on_add = enqueue;
  handler.on_update = [enqueue](const client::ObjectPtr&, const client::ObjectPtr& o) {
    enqueue(o);
  };
  if (deletes) handler.on_delete = enqueue;
  return handler;
}

}  // namespace controller
