#include "pkg/genericserver/audit/buffered_backend.h"

#include "pkg/genericserver/audit/metrics.h"
#include "pkg/util/log.h"

namespace audit {

BufferedBackend::BufferedBackend(std::string plugin, BufferOptions options, WriteFunc write)
    : plugin_(std::move(plugin)),
      options_(options),
      write_(std::move(write)),
      thread_([this] { Run(); }) {}

BufferedBackend::~BufferedBackend() { Shutdown(); }

void BufferedBackend::ProcessEvent(EventPtr event) {
  uint64_t dropped = 0;
  {
    std::lock_guard lock(mu_);
    if (!stopping_ && buffer_.size() < options_.buffer_size) {
      buffer_.push_back(std::move(event));
      // The thread waits for a first event, then for a full batch: waking it for any other
      // would only cost a futex call and a context switch per event.
      if (buffer_.size() == 1 || buffer_.size() == options_.max_batch_size) wake_.notify_one();
      return;
    }
    dropped = ++dropped_;
  }
  CountErrors(plugin_, 1);
  if (dropped % 1000 == 1) {
    KLOG_ERROR << "Error in audit plugin '" << plugin_
               << "' affecting 1 audit events: audit buffer queue blocked (" << dropped
               << " dropped so far)";
  }
}

void BufferedBackend::Shutdown() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    stopping_flag_ = true;
    wake_.notify_all();
  }
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void BufferedBackend::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || !buffer_.empty(); });
    if (buffer_.empty()) return;  // stopping, and everything written
    if (options_.max_batch_wait.count() > 0 && !stopping_) {
      wake_.wait_for(lock, options_.max_batch_wait,
                     [&] { return stopping_ || buffer_.size() >= options_.max_batch_size; });
    }
    std::vector<EventPtr> batch;
    while (!buffer_.empty() && batch.size() < std::max<size_t>(options_.max_batch_size, 1)) {
      batch.push_back(std::move(buffer_.front()));
      buffer_.pop_front();
    }
    lock.unlock();
    write_(batch, stopping_flag_);
    lock.lock();
  }
}

}  // namespace audit
