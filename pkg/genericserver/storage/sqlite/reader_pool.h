#pragma once
// The sqlite backend's reads run here, on threads of their own, each with its own
// read-only connection: a read that waits for a lock (the busy timeout) or for the disk
// holds one of these threads, never an Asio I/O thread. Results go back to the caller's
// coroutine through AwaitCallback (completion.h), as the writer's do.
//
// Thread-safety: Submit and Stop from any thread. A connection is opened, used and
// closed by its thread only.

#include <condition_variable>
#include <deque>
#include <expected>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pkg/genericserver/storage/errors.h"

namespace storage::sqlite {

class Connection;

class ReaderPool {
 public:
  // Gets the thread's connection, or null and why there is none (the file cannot be
  // opened, or the pool stopped): the task then fails its read with that error.
  using Task = std::function<void(Connection* conn, const StorageError& error)>;

  // threads == 0: tasks run on the caller's thread, on pooled connections (the old way,
  // kept as the benchmark's reference; a busy database then blocks the caller).
  ReaderPool(std::string path, size_t threads);
  ~ReaderPool();
  ReaderPool(const ReaderPool&) = delete;
  ReaderPool& operator=(const ReaderPool&) = delete;

  // Runs task once: on a reader thread, or at once with an error when stopped.
  void Submit(Task task);
  // Fails what is queued, finishes what runs, joins the threads. Idempotent.
  void Stop();

 private:
  void Loop(size_t index);
  std::expected<std::unique_ptr<Connection>, StorageError> Open() const;

  const std::string path_;
  const bool inline_;  // no threads: tasks run in Submit
  std::mutex mu_;
  // One per thread: a task wakes the thread that went idle last, whose connection's page
  // cache is the warmest (waking them in turn left every cache cold: a list of 10,000
  // took 1.6 times as long).
  std::vector<std::unique_ptr<std::condition_variable>> wake_;
  std::vector<size_t> idle_threads_;               // guarded by mu_: a stack
  std::deque<Task> tasks_;                         // guarded by mu_
  bool stopping_ = false;                          // guarded by mu_
  std::vector<std::unique_ptr<Connection>> idle_;  // guarded by mu_; inline_ only
  std::vector<std::thread> threads_;               // guarded by mu_ once constructed
};

}  // namespace storage::sqlite
