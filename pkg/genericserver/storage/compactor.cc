#include "pkg/genericserver/storage/compactor.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "pkg/genericserver/storage/wakeup.h"
#include "pkg/util/log.h"

namespace storage {

using Clock = std::chrono::steady_clock;

struct Compactor::State : std::enable_shared_from_this<Compactor::State> {
  State(std::shared_ptr<Interface> s, CompactorOptions o, boost::asio::io_context& io)
      : storage(std::move(s)), options(o), executor(io.get_executor()) {}

  Awaitable<void> Loop() {
    auto self = shared_from_this();
    std::deque<std::pair<Clock::time_point, int64_t>> samples;
    for (;;) {
      {
        std::lock_guard lock(mu);
        if (stopped) co_return;
      }
      co_await stop.Wait(Clock::now() + options.interval);
      {
        std::lock_guard lock(mu);
        if (stopped) co_return;
      }
      auto current = co_await storage->CurrentRevision();
      if (!current) {
        KLOG_V(2) << "compactor: " << current.error().message;
        continue;
      }
      const auto now = Clock::now();
      samples.emplace_back(now, *current);
      const int64_t target = CompactionTarget(samples, now, *current, options);
      // Samples older than the one used can never be used again.
      while (samples.size() > 1 && samples[1].first <= now - options.window) samples.pop_front();
      if (target <= Compacted()) continue;
      auto r = co_await storage->Compact(target);
      if (!r) {
        KLOG_WARNING << "compaction to " << target << " failed: " << r.error().message;
        continue;
      }
      KLOG_V(2) << "compacted storage to revision " << target;
      std::lock_guard lock(mu);
      compacted = target;
    }
  }

  int64_t Compacted() const {
    std::lock_guard lock(mu);
    return compacted;
  }

  std::shared_ptr<Interface> storage;
  const CompactorOptions options;
  boost::asio::io_context::executor_type executor;
  Wakeup stop;  // notified by Stop()
  mutable std::mutex mu;
  bool stopped = false;
  int64_t compacted = 0;
};

int64_t CompactionTarget(const std::deque<std::pair<Clock::time_point, int64_t>>& samples,
                         Clock::time_point now, int64_t current, const CompactorOptions& options) {
  int64_t target = 0;
  for (const auto& [at, revision] : samples) {
    if (at <= now - options.window) target = revision;
  }
  return std::min(target, current - options.min_revisions);
}

Compactor::Compactor(std::shared_ptr<Interface> storage, CompactorOptions options,
                     boost::asio::io_context& io)
    : state_(std::make_shared<State>(std::move(storage), options, io)) {}

Compactor::~Compactor() { Stop(); }

void Compactor::Start() {
  boost::asio::co_spawn(state_->executor, state_->Loop(), boost::asio::detached);
}

void Compactor::Stop() {
  std::lock_guard lock(state_->mu);
  if (state_->stopped) return;
  state_->stopped = true;
  state_->stop.Notify();
}

int64_t Compactor::Compacted() const { return state_->Compacted(); }

}  // namespace storage
