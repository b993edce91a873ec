#include "pkg/genericserver/server/lifecycle.h"

namespace genericserver {

uint64_t Lifecycle::OnCloseStreams(StreamCloser closer) {
  std::unique_lock lock(mu_);
  if (closing_) {
    lock.unlock();
    closer();
    return 0;
  }
  closers_.emplace(++next_id_, std::move(closer));
  return next_id_;
}

void Lifecycle::Unregister(uint64_t id) {
  std::lock_guard lock(mu_);
  closers_.erase(id);
}

void Lifecycle::CloseStreams() {
  std::map<uint64_t, StreamCloser> closers;
  {
    std::lock_guard lock(mu_);
    closing_ = true;
    closers.swap(closers_);
  }
  for (auto& [id, closer] : closers) closer();
}

}  // namespace genericserver
