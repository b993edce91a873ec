#include "pkg/genericserver/storage/sqlite/reader_pool.h"

#include <sqlite3.h>

#include "pkg/genericserver/storage/sqlite/db.h"

namespace storage::sqlite {
namespace {

// How long a read waits for a lock held by someone else (a recovering or checkpointing
// connection, another process) before it fails. On a reader thread, so no I/O thread waits.
constexpr int kBusyTimeoutMs = 5000;

StorageError Closed() { return UnreachableError("storage is closed"); }

}  // namespace

ReaderPool::ReaderPool(std::string path, size_t threads)
    : path_(std::move(path)), inline_(threads == 0) {
  for (size_t i = 0; i < threads; ++i) wake_.push_back(std::make_unique<std::condition_variable>());
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this, i] { Loop(i); });
}

ReaderPool::~ReaderPool() { Stop(); }

std::expected<std::unique_ptr<Connection>, StorageError> ReaderPool::Open() const {
  auto c = Connection::Open(path_, SQLITE_OPEN_READONLY);
  if (!c) return std::unexpected(UnreachableError(c.error()));
  sqlite3_busy_timeout((*c)->Raw(), kBusyTimeoutMs);
  (void)(*c)->Exec("PRAGMA cache_size=-16384");
  return std::move(*c);
}

void ReaderPool::Submit(Task task) {
  std::unique_lock lock(mu_);
  if (stopping_) {
    lock.unlock();
    task(nullptr, Closed());
    return;
  }
  if (!inline_) {
    tasks_.push_back(std::move(task));
    if (idle_threads_.empty()) return;  // a busy thread takes it when it is done
    const size_t last = idle_threads_.back();
    idle_threads_.pop_back();
    lock.unlock();
    wake_[last]->notify_one();
    return;
  }
  // No threads: on the caller's thread, with an idle connection or a new one.
  std::unique_ptr<Connection> conn;
  if (!idle_.empty()) {
    conn = std::move(idle_.back());
    idle_.pop_back();
  }
  lock.unlock();
  if (!conn) {
    auto opened = Open();
    if (!opened) {
      task(nullptr, opened.error());
      return;
    }
    conn = std::move(*opened);
  }
  task(conn.get(), StorageError{});
  lock.lock();
  idle_.push_back(std::move(conn));
}

void ReaderPool::Loop(size_t index) {
  std::unique_ptr<Connection> conn;  // this thread's, opened on first use
  for (;;) {
    Task task;
    {
      std::unique_lock lock(mu_);
      // Idle: on the stack until a task picks this thread (or another thread took the
      // task first, and this one goes back on the stack).
      while (!stopping_ && tasks_.empty()) {
        idle_threads_.push_back(index);
        wake_[index]->wait(lock);
        std::erase(idle_threads_, index);
      }
      if (tasks_.empty()) break;  // stopping, and nothing left
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    if (!conn) {
      auto opened = Open();
      if (!opened) {
        task(nullptr, opened.error());
        continue;  // try again with the next read
      }
      conn = std::move(*opened);
    }
    task(conn.get(), StorageError{});
  }
}

void ReaderPool::Stop() {
  std::deque<Task> left;
  std::vector<std::thread> threads;  // a second Stop() finds none to join
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    left.swap(tasks_);
    threads.swap(threads_);
  }
  for (auto& wake : wake_) wake->notify_all();
  for (Task& task : left) task(nullptr, Closed());
  for (std::thread& t : threads) t.join();
  std::lock_guard lock(mu_);
  idle_.clear();
}

}  // namespace storage::sqlite
