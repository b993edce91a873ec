#pragma once
// The loop every controller runs (DESIGN.md section 10): workers pop a key from the work
// queue, sync it, and on failure requeue it with the queue's per-item backoff (on success
// its failures are forgotten); informer handlers only enqueue.
//
// Threads: the queue's strand owns the queue; each worker's coroutine runs on it, and the
// sync function is awaited there (it may hop elsewhere and come back). A key is never
// synced by two workers at once (the queue guarantees it).

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "pkg/client/informer/shared_informer.h"
#include "pkg/client/workqueue/queue.h"

namespace controller {

// What a sync returns: nothing, or an error to retry the key with backoff. A sync that
// wants the key back later without counting a failure calls AddAfter itself.
using SyncResult = std::expected<void, std::string>;
using SyncFunc = std::function<Awaitable<SyncResult>(const std::string& key)>;

// Starts `workers` workers on the queue once `ready` (e.g. informers synced) returns true,
// polled; they run until the queue shuts down. `name` is for logs.
void RunWorkers(std::shared_ptr<workqueue::Queue> queue, int workers, std::string name,
                SyncFunc sync, std::vector<std::shared_ptr<client::SharedInformer>> wait_for);

// The handler most controllers give an informer: the key (client::KeyOf) of every object
// added or updated, and deleted when `deletes`, that `accepts` (every one when empty) is
// queued.
client::ResourceEventHandler EnqueueObjects(
    std::shared_ptr<workqueue::Queue> queue, bool deletes = false,
    std::function<bool(const nlohmann::json&)> accepts = {});

// Adds `key` to the queue from any thread (posted to the queue's strand).
void Enqueue(const std::shared_ptr<workqueue::Queue>& queue, std::string key);
void EnqueueAfter(const std::shared_ptr<workqueue::Queue>& queue, std::string key,
                  std::chrono::milliseconds delay);

// The delay to queue a key again with when it is due in `remaining`: rounded up to whole
// milliseconds (so the key does not come back just before its time), and at most a day (a
// time years away, e.g. a skewed clock, would overflow the queue's clock; the key is looked
// at again daily instead).
std::chrono::milliseconds RequeueDelay(std::chrono::microseconds remaining);

}  // namespace controller
