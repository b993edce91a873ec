// The sqlite backend's writer thread (group commit, publication, compaction, vacuum)
// and its checkpointer thread.
#include <sqlite3.h>

#include <chrono>
#include <exception>
#include <optional>

#include "pkg/genericserver/storage/completion.h"
#include "pkg/genericserver/storage/sqlite/db.h"
#include "pkg/genericserver/storage/sqlite/sqlite_kv.h"
#include "pkg/genericserver/storage/watch_queue.h"
#include "pkg/util/log.h"

namespace storage {

using sqlite::Connection;
using sqlite::Statement;

namespace {

// An SQL failure inside a batch, a compaction step or a log read: thrown only inside
// this file and caught by the writer's own entry points (ApplyBatch, CompactionStep,
// RegisterFromLog), which roll the transaction back and fail the requests it served.
// Nothing escapes the writer thread: a failing database fails writes, it does not stop
// the process.
struct BatchFailed {
  std::string message;
};

void Check(int rc, Connection& c) {
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) throw BatchFailed{c.Error()};
}

// A prepared statement, or BatchFailed (a prepare depends on the file: a missing table,
// a busy or corrupt schema, no memory).
Statement& Prepare(Connection& c, const std::string& sql) {
  auto s = c.Prepare(sql);
  if (!s) throw BatchFailed{s.error()};
  return **s;
}

}  // namespace

void SqliteKV::WriterLoop() {
  std::vector<WriteOp> batch;
  bool vacuuming = false;  // free pages left to give back: do not wait long
  for (;;) {
    std::deque<std::function<void()>> tasks;
    bool compacting = false;
    {
      std::unique_lock lock(queue_mu_);
      // Idle: wake up now and then for vacuum; pending compaction keeps the loop turning.
      const auto idle = vacuuming ? std::chrono::milliseconds(5) : std::chrono::milliseconds(1000);
      queue_cv_.wait_for(lock, idle, [&] {
        return stopping_ || !ops_.empty() || !tasks_.empty() || !compactions_.empty();
      });
      tasks.swap(tasks_);
      // Group commit: when the last batch showed several writers at work, give the ones
      // still on their way (resuming after the previous commit) a moment to join this
      // fsync. Alone, a writer never waits.
      if (!ops_.empty() && last_batch_ > 1 && ops_.size() < last_batch_ && options_.max_batch > 1) {
        queue_cv_.wait_for(lock, options_.commit_delay,
                           [&] { return stopping_ || ops_.size() >= last_batch_; });
      }
      while (!ops_.empty() && batch.size() < options_.max_batch) {
        batch.push_back(std::move(ops_.front()));
        ops_.pop_front();
      }
      compacting = !compactions_.empty();
      if (stopping_ && ops_.empty() && batch.empty() && tasks.empty()) break;
    }
    for (auto& task : tasks) task();
    if (!batch.empty()) {
      last_batch_ = batch.size();
      ApplyBatch(batch);
      batch.clear();
      MaybeRestartWal();
      continue;  // writes first; compaction and vacuum in the gaps
    }
    if (compacting) {
      if (!CompactionStep()) continue;
    } else {
      vacuuming = VacuumStep();
    }
  }
  // Whatever is left fails rather than hangs.
  std::unique_lock lock(queue_mu_);
  for (auto& c : compactions_) c.done(std::unexpected(UnreachableError("storage is closed")));
  compactions_.clear();
}

Result<TxnResult> SqliteKV::Apply(WriteOp& op, std::vector<KVEvent>& events) {
  Connection& db = *writer_;
  const bool creating = op.kind == WriteOp::Kind::kCreate;
  const bool deleting = op.kind == WriteOp::Kind::kDelete;
  auto read_current = [&]() -> std::optional<KeyValue> {
    // The key's newest version, with its value for the event and for a failed compare.
    Statement& cur = Prepare(db,
                             "SELECT l.create_revision, l.revision, l.value FROM current c "
                             "JOIN log l ON l.revision = c.revision WHERE c.key = ?1");
    cur.BindText(1, op.key);
    std::optional<KeyValue> kv;
    int rc = cur.Step();
    Check(rc, db);
    if (rc == SQLITE_ROW) {
      kv = KeyValue{op.key, std::make_shared<const std::string>(cur.Blob(2)), cur.Int(0),
                    cur.Int(1)};
    }
    cur.Reset();
    return kv;
  };
  TxnResult result;
  const int64_t rev = next_revision_ + 1;
  std::optional<KeyValue> current;
  if (creating) {
    // The common case first: the key is new, and claiming it is the compare.
    Statement& claim = Prepare(
        db, "INSERT INTO current (key, revision) VALUES (?1, ?2) ON CONFLICT(key) DO NOTHING");
    claim.BindText(1, op.key).Bind(2, rev);
    Check(claim.Step(), db);
    claim.Reset();
    if (db.Changes() == 0) {
      result.revision = next_revision_;
      result.current = read_current();
      return result;
    }
  } else {
    current = read_current();
    if (!current || current->mod_revision != op.expected) {
      result.revision = next_revision_;
      result.current = std::move(current);
      return result;
    }
    Statement& idx = deleting ? Prepare(db, "DELETE FROM current WHERE key = ?1")
                              : Prepare(db, "UPDATE current SET revision = ?2 WHERE key = ?1");
    idx.BindText(1, op.key);
    if (!deleting) idx.Bind(2, rev);
    Check(idx.Step(), db);
    idx.Reset();
  }
  next_revision_ = rev;
  const int64_t created = deleting ? 0 : (current ? current->create_revision : rev);
  Statement& ins =
      Prepare(db,
              "INSERT INTO log (revision, key, create_revision, prev_revision, deleted, value) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  ins.Bind(1, rev)
      .BindText(2, op.key)
      .Bind(3, created)
      .Bind(4, current ? current->mod_revision : 0)
      .Bind(5, deleting ? 1 : 0);
  if (deleting) {
    ins.BindNull(6);
  } else {
    ins.BindBlob(6, op.value);
  }
  Check(ins.Step(), db);
  ins.Reset();

  KVEvent e;
  e.revision = rev;
  e.type = deleting ? KVEvent::Type::kDelete : KVEvent::Type::kPut;
  e.kv.key = op.key;
  e.kv.mod_revision = rev;
  if (!deleting) {
    e.kv.value = std::make_shared<const std::string>(std::move(op.value));
    e.kv.create_revision = created;
  }
  e.prev = current;
  result.succeeded = true;
  result.revision = rev;
  result.prev = std::move(current);
  events.push_back(std::move(e));
  return result;
}

void SqliteKV::ApplyBatch(std::vector<WriteOp>& ops) {
  Connection& db = *writer_;
  std::vector<Result<TxnResult>> results;
  std::vector<KVEvent> events;
  results.reserve(ops.size());
  const int64_t before = next_revision_;
  const auto started = std::chrono::steady_clock::now();
  std::optional<std::string> failure;
  try {
    if (auto r = db.Exec("BEGIN IMMEDIATE"); !r) throw BatchFailed{r.error()};
    for (WriteOp& op : ops) results.push_back(Apply(op, events));
    if (next_revision_ != before) {
      Statement& meta = Prepare(db, "UPDATE meta SET value = ?1 WHERE name = 'revision'");
      meta.Bind(1, next_revision_);
      Check(meta.Step(), db);
      meta.Reset();
    }
    if (auto r = db.Exec("COMMIT"); !r) throw BatchFailed{r.error()};
  } catch (const BatchFailed& f) {
    failure = f.message;
  } catch (const std::exception& e) {  // out of memory building a result: the same
    failure = e.what();
  }
  if (failure) {
    (void)db.Exec("ROLLBACK");
    next_revision_ = before;
    KLOG_ERROR << "sqlite write of " << ops.size() << " operations failed: " << *failure;
    for (WriteOp& op : ops) {
      op.done(std::unexpected(StorageError{ErrorCode::kUnreachable, op.key,
                                           "storage write failed: " + *failure, 0, nullptr}));
    }
    return;
  }
  revision_ = next_revision_;
  if (auto took = std::chrono::steady_clock::now() - started;
      took > std::chrono::milliseconds(20)) {
    KLOG_V(4) << "sqlite commit of " << ops.size() << " writes took "
              << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << "ms";
  }
  ++commits_;
  committed_writes_ += static_cast<int64_t>(ops.size());
  Publish(events);
  CompletionBatch wake_once;  // one wake-up per I/O loop for the whole batch
  for (size_t i = 0; i < ops.size(); ++i) {
    if (results[i] && !results[i]->succeeded) results[i]->revision = next_revision_;
    ops[i].done(std::move(results[i]));
  }
}

void SqliteKV::Publish(const std::vector<KVEvent>& events) {
  if (events.empty()) return;
  std::lock_guard lock(watch_mu_);
  for (const KVEvent& e : events) {
    history_.push_back(e);
    std::erase_if(watchers_, [&](const std::weak_ptr<WatchQueue>& weak) {
      auto w = weak.lock();
      return !w || !w->Offer(e);
    });
  }
  while (history_.size() > options_.history_events) history_.pop_front();
}

Result<void> SqliteKV::RegisterFromLog(const std::shared_ptr<WatchQueue>& watcher, int64_t start) {
  Connection& db = *writer_;
  bool alive = true;
  try {
    Statement& s = Prepare(
        db,
        "SELECT l.revision, l.key, l.create_revision, l.deleted, l.value, "
        "p.revision, p.create_revision, p.value "
        "FROM log l LEFT JOIN log p ON p.revision = l.prev_revision AND l.prev_revision > 0 "
        "WHERE l.revision >= ?1 ORDER BY l.revision");
    s.Bind(1, start);
    int rc = SQLITE_DONE;
    while (alive && (rc = s.Step()) == SQLITE_ROW) {
      KVEvent e;
      e.revision = s.Int(0);
      e.kv.key = std::string(s.Text(1));
      e.kv.mod_revision = e.revision;
      if (s.Int(3)) {
        e.type = KVEvent::Type::kDelete;
      } else {
        e.type = KVEvent::Type::kPut;
        e.kv.create_revision = s.Int(2);
        e.kv.value = std::make_shared<const std::string>(s.Blob(4));
      }
      if (!s.IsNull(5)) {
        e.prev =
            KeyValue{e.kv.key, std::make_shared<const std::string>(s.Blob(7)), s.Int(6), s.Int(5)};
      }
      alive = watcher->Offer(e);
    }
    s.Reset();
    // A watcher that missed part of the log must not be registered as if it had not.
    if (alive) Check(rc, db);
  } catch (const BatchFailed& f) {
    KLOG_ERROR << "sqlite watch from revision " << start << ": " << f.message;
    watcher->Stop();
    return std::unexpected(UnreachableError("storage read failed: " + f.message));
  }
  std::lock_guard lock(watch_mu_);
  if (alive) watchers_.push_back(watcher);
  return {};
}

// One bounded step: deletes, among the revisions in the next window, the versions that
// a newer version at or below the target supersedes, and the deletion markers.
// Returns true when the current request is complete.
bool SqliteKV::CompactionStep() {
  CompactRequest request;
  {
    std::lock_guard lock(queue_mu_);
    if (compactions_.empty()) return true;
    request = compactions_.front();
  }
  Connection& db = *writer_;
  const int64_t target = request.revision;
  auto finish = [&](Result<void> r) {
    std::unique_lock lock(queue_mu_);
    auto pending = std::move(compactions_.front());
    compactions_.erase(compactions_.begin());
    lock.unlock();
    pending.done(std::move(r));
  };
  if (target <= compact_cursor_ && target <= compact_revision_.load()) {
    finish({});
    return true;
  }
  const auto started = std::chrono::steady_clock::now();
  const int64_t hi = std::min(target, compact_cursor_ + options_.compaction_step_revisions);
  try {
    if (auto r = db.Exec("BEGIN IMMEDIATE"); !r) throw BatchFailed{r.error()};
    if (target > compact_revision_.load()) {
      // Announce first: reads below the target fail as too old from now on, so no
      // reader ever sees a half-compacted past.
      Statement& m = Prepare(db, "UPDATE meta SET value = ?1 WHERE name = 'compact_revision'");
      m.Bind(1, target);
      Check(m.Step(), db);
      m.Reset();
    }
    // Versions a successor in this window supersedes (the window ends at or below the
    // target), then the deletion markers in the window. Primary-key lookups only.
    Statement& superseded =
        Prepare(db,
                "DELETE FROM log WHERE revision IN (SELECT prev_revision FROM log "
                "WHERE revision > ?1 AND revision <= ?2 AND prev_revision > 0)");
    superseded.Bind(1, compact_cursor_).Bind(2, hi);
    Check(superseded.Step(), db);
    superseded.Reset();
    Statement& markers =
        Prepare(db, "DELETE FROM log WHERE revision > ?1 AND revision <= ?2 AND deleted = 1");
    markers.Bind(1, compact_cursor_).Bind(2, hi);
    Check(markers.Step(), db);
    markers.Reset();
    Statement& c = Prepare(db, "UPDATE meta SET value = ?1 WHERE name = 'compact_cursor'");
    c.Bind(1, hi);
    Check(c.Step(), db);
    c.Reset();
    if (auto r = db.Exec("COMMIT"); !r) throw BatchFailed{r.error()};
  } catch (const BatchFailed& f) {  // the writer goes on; the compactor tries again later
    (void)db.Exec("ROLLBACK");
    KLOG_ERROR << "sqlite compaction step failed: " << f.message;
    finish(std::unexpected(InternalError("compaction failed: " + f.message)));
    return true;
  }
  if (target > compact_revision_.load()) compact_revision_ = target;
  compact_cursor_ = hi;
  KLOG_V(6) << "compacted revisions up to " << hi << " of " << target << " in "
            << std::chrono::duration_cast<std::chrono::microseconds>(
                   std::chrono::steady_clock::now() - started)
                   .count()
            << "us";
  if (hi < target) return false;
  finish({});
  return true;
}

bool SqliteKV::VacuumStep() {
  auto free_pages = writer_->QueryInt("PRAGMA freelist_count");
  if (!free_pages || *free_pages < options_.vacuum_step_pages) return false;
  // A step of free pages back to the file system (once the checkpointer copied the
  // change into the file); the loop comes back for more only while it has nothing else.
  (void)writer_->Exec("PRAGMA incremental_vacuum(" + std::to_string(options_.vacuum_step_pages) +
                      ")");
  return true;
}

int SqliteKV::OnWalCommit(void* self, sqlite3*, const char*, int frames) {
  auto* kv = static_cast<SqliteKV*>(self);
  kv->wal_frames_ = frames;
  // Wake the checkpointer whenever the WAL grew by a step since the last wake-up, so that
  // it copies in small increments instead of in bursts every interval.
  if (frames < kv->frames_at_last_wake_) kv->frames_at_last_wake_ = 0;  // the WAL restarted
  if (frames - kv->frames_at_last_wake_ >= kv->options_.checkpoint_frames) {
    kv->frames_at_last_wake_ = frames;
    {
      std::lock_guard lock(kv->queue_mu_);
      kv->checkpoint_wanted_ = true;
    }
    kv->stop_cv_.notify_one();
  }
  return SQLITE_OK;
}

void SqliteKV::MaybeRestartWal() {
  const int64_t frames = wal_frames_.load(), backfilled = wal_backfilled_.load();
  // Only when the WAL is long and the checkpointer has done nearly all of the copying:
  // what is left (the frames written during its last pass) is quick to copy here, and
  // with everything copied the next commit starts the WAL over.
  if (frames < options_.wal_restart_frames || frames - backfilled > options_.checkpoint_frames) {
    return;
  }
  const auto started = std::chrono::steady_clock::now();
  int log = 0, copied = 0;
  sqlite3_wal_checkpoint_v2(writer_->Raw(), nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
  wal_backfilled_ = copied;
  wal_frames_ = log == copied ? 0 : log;  // all copied: the next commit restarts the WAL
  KLOG_V(5) << "writer finished a checkpoint of " << frames - backfilled << " frames in "
            << std::chrono::duration_cast<std::chrono::microseconds>(
                   std::chrono::steady_clock::now() - started)
                   .count()
            << "us";
}

void SqliteKV::CheckpointLoop() {
  auto conn = Connection::Open(options_.path, SQLITE_OPEN_READWRITE);
  if (!conn) {
    KLOG_ERROR << "sqlite checkpointer: " << conn.error();
    return;
  }
  // The C checkpoint call needs the connection to have read the file once.
  (void)(*conn)->QueryInt("SELECT COUNT(*) FROM meta");
  for (;;) {
    {
      std::unique_lock lock(queue_mu_);
      stop_cv_.wait_for(lock, options_.checkpoint_interval,
                        [&] { return stopping_ || checkpoint_wanted_; });
      if (stopping_) break;
      checkpoint_wanted_ = false;
    }
    // PASSIVE copies what it can without waiting for anyone: writers never stall on it.
    // It never truncates either: a truncation waits for the file's pages to be written
    // back, which held writers for 100+ ms here; the restart does it (journal_size_limit).
    const auto started = std::chrono::steady_clock::now();
    int log = 0, copied = 0;
    int rc = sqlite3_wal_checkpoint_v2((*conn)->Raw(), nullptr, SQLITE_CHECKPOINT_PASSIVE, &log,
                                       &copied);
    if (rc != SQLITE_OK && rc != SQLITE_BUSY) {
      KLOG_WARNING << "sqlite checkpoint: " << (*conn)->Error();
      continue;
    }
    wal_backfilled_ = copied;
    KLOG_V(6) << "checkpoint of " << log << " frames (" << copied << " copied) took "
              << std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::steady_clock::now() - started)
                     .count()
              << "ms";
  }
}

}  // namespace storage
