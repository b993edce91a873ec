#pragma once
// The in-process side of a KV watch, shared by the memory and sqlite backends: the
// backend offers every committed event (in revision order, under its own lock) and the
// queue keeps those in range for its one consumer. A consumer that falls more than
// kCapacity events behind is cut off: its stream ends and it must watch again.

#include <functional>
#include <memory>
#include <string>

#include "pkg/genericserver/storage/kv.h"

namespace storage {

template <class T>
class AsyncQueue;

class WatchQueue {
 public:
  static constexpr size_t kCapacity = 100000;

  WatchQueue(std::string key, std::string end, int64_t start_revision);
  ~WatchQueue();

  // False once the watcher is gone (stopped or overflowed): the backend may forget it.
  bool Offer(const KVEvent& event);
  // Where RequestProgress() reads the backend's current revision.
  void SetProgressSource(std::function<int64_t()> source);
  void RequestProgress();
  Awaitable<std::optional<Result<KVEvent>>> Next();
  void Stop();

 private:
  bool InRange(const std::string& key) const;

  std::string key_;
  std::string end_;
  int64_t start_;
  std::function<int64_t()> progress_source_;
  std::shared_ptr<AsyncQueue<KVEvent>> queue_;
};

// What the consumer holds: stops the watch when dropped.
class WatchHandle final : public KVWatch {
 public:
  explicit WatchHandle(std::shared_ptr<WatchQueue> queue) : queue_(std::move(queue)) {}
  ~WatchHandle() override { queue_->Stop(); }
  Awaitable<std::optional<Result<KVEvent>>> Next() override { return queue_->Next(); }
  void Stop() override { queue_->Stop(); }
  bool RequestProgress() override {
    queue_->RequestProgress();
    return true;
  }

 private:
  std::shared_ptr<WatchQueue> queue_;
};

}  // namespace storage
