#pragma once
// The sqlite backend (the default): one database file under --data-dir.
//
// Schema (docs/storage.md has the reasoning):
//   log(revision PK, key, create_revision, prev_revision, deleted, value)  every write
//   current(key PK, revision)  the newest live version of each key
//   meta(name PK, value)       revision, compact_revision, compact_cursor
//
// Writes go to ONE writer thread that applies every queued write in one transaction
// and one fsync (group commit), publishes the events to watchers in-process, then
// resumes the writers' coroutines. Reads run on reader threads (reader_pool.h), each on
// its own read-only connection and in a snapshot, and resume the caller's coroutine on
// its executor: no I/O thread waits for SQLite's locks or the disk. Compaction and
// incremental vacuum run on the writer
// between batches in small steps; a checkpointer thread keeps the WAL short without
// blocking writers.

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pkg/genericserver/storage/kv.h"
#include "pkg/util/duration.h"

struct sqlite3;

namespace storage {

class WatchQueue;

namespace sqlite {
class Connection;
class ReaderPool;
}  // namespace sqlite

struct SqliteOptions {
  std::string path;
  // Writes applied per transaction; 1 turns group commit off (one fsync per write).
  size_t max_batch = 1000;
  // How long a batch may wait for writers that were in the previous one (only then).
  util::Duration commit_delay = std::chrono::microseconds(200);
  // PRAGMA synchronous=FULL: a write is on disk when it is acknowledged.
  bool synchronous_full = true;
  // Threads that run reads (each with its own connection). 0 runs them on the caller's
  // thread instead: the benchmark's reference only, as a busy database then blocks it.
  size_t reader_threads = 4;
  // Recent events kept in memory so that new watches catch up without a query.
  size_t history_events = 10000;
  util::Duration checkpoint_interval = std::chrono::milliseconds(500);
  // The checkpointer also runs as soon as the WAL has grown by this many frames (pages).
  int64_t checkpoint_frames = 1024;
  // The WAL is restarted from its beginning once it holds this many frames and the
  // checkpointer has copied all but checkpoint_frames of them; a file grown past
  // wal_limit_bytes by a burst is truncated back at that restart.
  int64_t wal_restart_frames = 4096;
  int64_t wal_limit_bytes = 64 << 20;
  int64_t compaction_step_revisions = 1000;
  int64_t vacuum_step_pages = 256;
};

class SqliteKV final : public KV, public std::enable_shared_from_this<SqliteKV> {
 public:
  // Opens (creating if needed) the database. Fails with a clear message for a file that
  // is not ours or comes from a newer build; never modifies such a file.
  static std::expected<std::shared_ptr<SqliteKV>, std::string> Open(SqliteOptions options);
  ~SqliteKV() override;

  Awaitable<Result<RangeResult>> Range(std::string key, RangeOptions options) override;
  Awaitable<Result<TxnResult>> Create(std::string key, std::string value) override;
  Awaitable<Result<TxnResult>> Update(std::string key, std::string value,
                                      int64_t expected_revision) override;
  Awaitable<Result<TxnResult>> Delete(std::string key, int64_t expected_revision) override;
  Awaitable<Result<std::unique_ptr<KVWatch>>> Watch(std::string key,
                                                    KVWatchOptions options) override;
  Awaitable<Result<void>> Compact(int64_t revision) override;
  std::optional<int64_t> CommittedRevision() const override { return revision_.load(); }
  Awaitable<Result<KVStats>> Stats() override;
  Result<void> Healthy() const override;

  // Stops the threads and closes the file; pending writes fail. Idempotent.
  void Close();

  static constexpr int kSchemaVersion = 1;

 private:
  struct WriteOp {
    enum class Kind { kCreate, kUpdate, kDelete } kind;
    std::string key;
    std::string value;
    int64_t expected = 0;
    std::function<void(Result<TxnResult>)> done;
  };
  struct CompactRequest {
    int64_t revision;
    std::function<void(Result<void>)> done;
  };

  explicit SqliteKV(SqliteOptions options);
  std::expected<void, std::string> Init();

  // Writer thread (sqlite_writer.cc).
  void WriterLoop();
  void ApplyBatch(std::vector<WriteOp>& ops);
  Result<TxnResult> Apply(WriteOp& op, std::vector<KVEvent>& events);
  bool CompactionStep();
  bool VacuumStep();  // true when free pages are left
  void Publish(const std::vector<KVEvent>& events);
  void CheckpointLoop();
  // Writer thread, between batches: finishes the checkpointer's work so that the next
  // write starts the WAL over (under constant writes it never would otherwise).
  void MaybeRestartWal();
  static int OnWalCommit(void* self, ::sqlite3* db, const char* name, int frames);
  Awaitable<Result<TxnResult>> Submit(WriteOp op);
  // Catches a new watcher up from the log and registers it (writer thread); a failed
  // read of the log stops the watcher and fails the watch.
  Result<void> RegisterFromLog(const std::shared_ptr<WatchQueue>& watcher, int64_t start);

  // Runs read on a reader thread and resumes the caller with its result (sqlite_kv.cc).
  template <class T>
  Awaitable<Result<T>> Read(std::function<Result<T>(sqlite::Connection&)> read);

  const SqliteOptions options_;
  std::unique_ptr<sqlite::Connection> writer_;

  // Written by the writer thread only; read by others.
  std::atomic<int64_t> revision_{0};
  std::atomic<int64_t> compact_revision_{0};
  int64_t compact_cursor_ = 0;  // writer thread only
  int64_t next_revision_ = 0;   // writer thread only: revisions handed out in the open batch
  size_t last_batch_ = 0;       // writer thread only
  std::atomic<int64_t> commits_{0};
  // Frames in the WAL (after each commit, from the WAL hook) and frames the last
  // checkpoint copied to the database.
  std::atomic<int64_t> wal_frames_{0};
  std::atomic<int64_t> wal_backfilled_{0};
  int64_t frames_at_last_wake_ = 0;  // writer thread only
  std::atomic<int64_t> committed_writes_{0};

  std::mutex queue_mu_;
  std::condition_variable queue_cv_;  // wakes the writer
  std::condition_variable stop_cv_;   // wakes the checkpointer (shutdown, or WAL growth)
  bool checkpoint_wanted_ = false;    // guarded by queue_mu_
  std::deque<WriteOp> ops_;
  std::deque<std::function<void()>> tasks_;
  std::vector<CompactRequest> compactions_;
  bool stopping_ = false;

  std::unique_ptr<sqlite::ReaderPool> readers_;  // set by Open(), stopped by Close()

  // Guards the event history and the watchers; held while publishing.
  std::mutex watch_mu_;
  std::deque<KVEvent> history_;
  std::vector<std::weak_ptr<WatchQueue>> watchers_;

  mutable std::mutex health_mu_;
  std::string fatal_error_;

  std::thread writer_thread_;
  std::thread checkpoint_thread_;
  std::mutex close_mu_;
  bool closed_ = false;
};

}  // namespace storage
