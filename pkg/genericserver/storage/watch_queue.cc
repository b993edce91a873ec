#include "pkg/genericserver/storage/watch_queue.h"

#include "pkg/genericserver/storage/async_queue.h"

namespace storage {

WatchQueue::WatchQueue(std::string key, std::string end, int64_t start_revision)
    : key_(std::move(key)),
      end_(std::move(end)),
      start_(start_revision),
      queue_(std::make_shared<AsyncQueue<KVEvent>>(kCapacity)) {}

WatchQueue::~WatchQueue() { queue_->Close(); }

bool WatchQueue::InRange(const std::string& key) const {
  if (end_.empty()) return key == key_;
  if (key < key_) return false;
  return end_ == std::string(1, '\0') || key < end_;
}

bool WatchQueue::Offer(const KVEvent& event) {
  if (event.revision < start_ || !InRange(event.kv.key)) return true;
  return queue_->Push(event);
}

void WatchQueue::SetProgressSource(std::function<int64_t()> source) {
  progress_source_ = std::move(source);
}

void WatchQueue::RequestProgress() {
  if (!progress_source_) return;
  KVEvent progress;
  progress.type = KVEvent::Type::kProgress;
  progress.revision = progress_source_();
  queue_->Push(std::move(progress));
}

Awaitable<std::optional<Result<KVEvent>>> WatchQueue::Next() {
  auto queue = queue_;
  auto event = co_await queue->Pop();
  if (!event) co_return std::nullopt;
  co_return Result<KVEvent>(std::move(*event));
}

void WatchQueue::Stop() { queue_->CloseNow(); }

}  // namespace storage
