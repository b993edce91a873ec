#pragma once
// The non-blocking half of every backend: ProcessEvent puts the event in a bounded buffer
// and returns; one thread of the backend's own takes batches out and writes them. When the
// buffer is full the event is dropped, counted in apiserver_audit_error_total{plugin} and
// logged (the first drop and then every 1000th): a slow disk or webhook never holds a
// request up, at the price of a gap in the trail that the metric shows.
//
// Threads: ProcessEvent and Shutdown from any thread; `write` runs on the backend's thread
// only.

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pkg/genericserver/audit/backend.h"
#include "pkg/util/duration.h"

namespace audit {

struct BufferOptions {
  size_t buffer_size = 10000;
  // A batch is written when it has max_batch_size events, or max_batch_wait after its first.
  size_t max_batch_size = 400;
  util::Duration max_batch_wait{0};
};

class BufferedBackend : public Backend {
 public:
  // `stopping` turns true when Shutdown is called: a write that waits (to retry) should stop.
  using WriteFunc =
      std::function<void(std::vector<EventPtr>& batch, const std::atomic<bool>& stopping)>;
  BufferedBackend(std::string plugin, BufferOptions options, WriteFunc write);
  ~BufferedBackend() override;

  void ProcessEvent(EventPtr event) override;
  // Writes what is buffered, then stops the thread.
  void Shutdown() override;

 private:
  void Run();

  const std::string plugin_;
  const BufferOptions options_;
  const WriteFunc write_;
  std::mutex mu_;  // guards what follows
  std::condition_variable wake_;
  std::deque<EventPtr> buffer_;
  bool stopping_ = false;
  uint64_t dropped_ = 0;
  std::atomic<bool> stopping_flag_{false};
  std::thread thread_;  // last: starts once the rest is ready
};

}  // namespace audit
