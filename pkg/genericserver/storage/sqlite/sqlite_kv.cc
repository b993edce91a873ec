// The sqlite backend: opening, the schema, reads and watch registration.
// The writer thread lives in sqlite_writer.cc.
#include "pkg/genericserver/storage/sqlite/sqlite_kv.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include "pkg/genericserver/storage/completion.h"
#include "pkg/genericserver/storage/sqlite/db.h"
#include "pkg/genericserver/storage/sqlite/history.h"
#include "pkg/genericserver/storage/sqlite/reader_pool.h"
#include "pkg/genericserver/storage/watch_queue.h"
#include "pkg/util/log.h"

namespace storage {

using sqlite::Connection;
using sqlite::Statement;

namespace {

// Stands for "no upper bound": keys are paths and never start with 0xff.
const std::string kUnbounded(8, '\xff');

const char* kSchema = R"sql(
CREATE TABLE log (
  revision INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  value BLOB
);
CREATE TABLE current (key TEXT PRIMARY KEY, revision INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO meta VALUES ('revision', 0), ('compact_revision', 0), ('compact_cursor', 0);
)sql";

int64_t FileSize(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

StorageError ReadFailed(const std::string& message) {
  return UnreachableError("storage read failed: " + message);
}

std::expected<Statement*, StorageError> Prepare(Connection& db, const std::string& sql) {
  auto s = db.Prepare(sql);
  if (!s) return std::unexpected(ReadFailed(s.error()));
  return *s;
}

// Stands for "no upper bound" in SQL comparisons.
std::string SqlEnd(const std::string& end) {
  return end.empty() ? "" : (end == std::string(1, '\0') ? kUnbounded : end);
}

// KV::Range on a reader thread, in one read transaction.
Result<RangeResult> ReadRange(Connection& conn, const std::string& key,
                              const RangeOptions& options) {
  sqlite::ScopedRead snapshot(conn);  // every query below sees one state
  if (!snapshot.ok) return std::unexpected(ReadFailed(conn.Error()));
  auto newest = conn.QueryInt("SELECT value FROM meta WHERE name='revision'");
  if (!newest) return std::unexpected(ReadFailed(newest.error()));
  auto compacted = conn.QueryInt("SELECT value FROM meta WHERE name='compact_revision'");
  if (!compacted) return std::unexpected(ReadFailed(compacted.error()));
  if (options.revision && options.revision < *compacted) {
    return std::unexpected(TooOldError(options.revision, *compacted));
  }
  const int64_t at = options.revision ? options.revision : *newest;
  if (at > *newest) {
    return std::unexpected(StorageError{
        ErrorCode::kTooLargeResourceVersion, key,
        "required revision " + std::to_string(at) + " is a future revision", *newest, nullptr});
  }
  const std::string end = SqlEnd(options.end);
  if (at < *newest) {
    auto past = sqlite::RangeAt(conn, key, end, at, options.limit, options.count_only);
    if (past) past->revision = *newest;
    return past;
  }
  RangeResult out;
  out.revision = *newest;
  auto read_row = [&](Statement& s, int key_col) {
    KeyValue kv;
    kv.key = key_col >= 0 ? std::string(s.Text(key_col)) : key;
    kv.create_revision = s.Int(key_col + 1);
    kv.mod_revision = s.Int(key_col + 2);
    kv.value = std::make_shared<const std::string>(s.Blob(key_col + 3));
    return kv;
  };

  if (end.empty()) {
    auto s = Prepare(conn,
                     "SELECT l.create_revision, l.revision, l.value FROM current c "
                     "JOIN log l ON l.revision = c.revision WHERE c.key = ?1");
    if (!s) return std::unexpected(s.error());
    (*s)->BindText(1, key);
    const int rc = (*s)->Step();
    if (rc == SQLITE_ROW) {
      out.count = 1;
      if (!options.count_only) out.kvs.push_back(read_row(**s, -1));
    }
    (*s)->Reset();
    // An error is not "not found".
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return std::unexpected(ReadFailed(conn.Error()));
    return out;
  }

  const int64_t limit = options.count_only ? 0 : (options.limit > 0 ? options.limit + 1 : -1);
  if (limit != 0) {
    auto s = Prepare(conn,
                     "SELECT c.key, l.create_revision, l.revision, l.value FROM current c "
                     "JOIN log l ON l.revision = c.revision "
                     "WHERE c.key >= ?1 AND c.key < ?2 ORDER BY c.key LIMIT ?3");
    if (!s) return std::unexpected(s.error());
    (*s)->BindText(1, key).BindText(2, end).Bind(3, limit);
    int rc;
    while ((rc = (*s)->Step()) == SQLITE_ROW) out.kvs.push_back(read_row(**s, 0));
    (*s)->Reset();
    if (rc != SQLITE_DONE) return std::unexpected(ReadFailed(conn.Error()));
    if (options.limit > 0 && static_cast<int64_t>(out.kvs.size()) > options.limit) {
      out.kvs.pop_back();
      out.more = true;
    }
  }
  if (!options.count_only && !out.more) {
    out.count = static_cast<int64_t>(out.kvs.size());
    return out;
  }
  auto c = Prepare(conn, "SELECT COUNT(*) FROM current WHERE key >= ?1 AND key < ?2");
  if (!c) return std::unexpected(c.error());
  (*c)->BindText(1, key).BindText(2, end);
  const int rc = (*c)->Step();
  if (rc == SQLITE_ROW) out.count = (*c)->Int(0);
  (*c)->Reset();
  if (rc != SQLITE_ROW) return std::unexpected(ReadFailed(conn.Error()));
  return out;
}

// The live keys and their bytes, for Stats().
Result<KVStats> ReadStats(Connection& conn) {
  sqlite::ScopedRead snapshot(conn);
  if (!snapshot.ok) return std::unexpected(ReadFailed(conn.Error()));
  auto q = Prepare(conn,
                   "SELECT COUNT(*), COALESCE(SUM(LENGTH(l.value)), 0) FROM current c "
                   "JOIN log l ON l.revision = c.revision");
  if (!q) return std::unexpected(q.error());
  KVStats s;
  const int rc = (*q)->Step();
  if (rc == SQLITE_ROW) {
    s.keys = (*q)->Int(0);
    s.value_bytes = (*q)->Int(1);
  }
  (*q)->Reset();
  if (rc != SQLITE_ROW) return std::unexpected(ReadFailed(conn.Error()));
  return s;
}

}  // namespace

SqliteKV::SqliteKV(SqliteOptions options) : options_(std::move(options)) {}

std::expected<std::shared_ptr<SqliteKV>, std::string> SqliteKV::Open(SqliteOptions options) {
  auto kv = std::shared_ptr<SqliteKV>(new SqliteKV(std::move(options)));
  if (auto r = kv->Init(); !r) return std::unexpected(r.error());
  kv->readers_ =
      std::make_unique<sqlite::ReaderPool>(kv->options_.path, kv->options_.reader_threads);
  kv->writer_thread_ = std::thread([kv = kv.get()] { kv->WriterLoop(); });
  kv->checkpoint_thread_ = std::thread([kv = kv.get()] { kv->CheckpointLoop(); });
  return kv;
}

std::expected<void, std::string> SqliteKV::Init() {
  const std::string& path = options_.path;
  auto conn = Connection::Open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (!conn) return std::unexpected(conn.error());
  writer_ = std::move(*conn);
  sqlite3_busy_timeout(writer_->Raw(), 5000);
  auto fail = [&](const std::string& what) -> std::expected<void, std::string> {
    return std::unexpected(path + ": " + what);
  };

  auto version = writer_->QueryInt("PRAGMA user_version");
  if (!version) return fail("not a database: " + version.error());
  auto tables = writer_->QueryInt("SELECT COUNT(*) FROM sqlite_master");
  if (!tables) return fail("not a database: " + tables.error());
  if (*version > kSchemaVersion) {
    return fail("the database has schema version " + std::to_string(*version) +
                ", newer than this build understands (" + std::to_string(kSchemaVersion) +
                "); run a newer kube-apiserver, or restore a backup made by this version");
  }
  if (*version == 0 && *tables > 0) {
    return fail("the file is an SQLite database not created by kube-apiserver; refusing to use it");
  }
  if (*version == 0) {
    // Must precede the first table for incremental vacuum to be possible.
    if (auto r = writer_->Exec("PRAGMA auto_vacuum=INCREMENTAL"); !r) return fail(r.error());
    if (auto r = writer_->Exec("PRAGMA journal_mode=WAL"); !r) return fail(r.error());
    if (auto r = writer_->Exec(std::string("BEGIN;") + kSchema + "PRAGMA user_version=" +
                               std::to_string(kSchemaVersion) + ";COMMIT;");
        !r) {
      (void)writer_->Exec("ROLLBACK");
      return fail("creating the schema: " + r.error());
    }
  }
  // Settings that are not stored in the file.
  for (const std::string& pragma :
       {std::string("PRAGMA journal_mode=WAL"),
        std::string("PRAGMA synchronous=") + (options_.synchronous_full ? "FULL" : "NORMAL"),
        std::string("PRAGMA wal_autocheckpoint=0"),  // the checkpointer thread does it
        "PRAGMA journal_size_limit=" + std::to_string(options_.wal_limit_bytes),
        std::string("PRAGMA temp_store=MEMORY"), std::string("PRAGMA cache_size=-65536")}) {
    if (auto r = writer_->Exec(pragma); !r) return fail(pragma + ": " + r.error());
  }
  sqlite3_wal_hook(writer_->Raw(), &SqliteKV::OnWalCommit, this);
  auto check = writer_->QueryInt(
      "SELECT COUNT(*) FROM sqlite_master WHERE name IN "
      "('log','current','meta')");
  if (!check || *check != 3) return fail("the database is missing tables of schema version 1");
  auto revision = writer_->QueryInt("SELECT value FROM meta WHERE name='revision'");
  auto compacted = writer_->QueryInt("SELECT value FROM meta WHERE name='compact_revision'");
  auto cursor = writer_->QueryInt("SELECT value FROM meta WHERE name='compact_cursor'");
  if (!revision || !compacted || !cursor) return fail("reading the revision: " + writer_->Error());
  revision_ = *revision;
  next_revision_ = *revision;
  compact_revision_ = *compacted;
  compact_cursor_ = *cursor;
  KLOG_V(1) << "sqlite storage " << path << " at revision " << *revision << ", compacted to "
            << *compacted;
  return {};
}

SqliteKV::~SqliteKV() { Close(); }

void SqliteKV::Close() {
  {
    std::lock_guard lock(close_mu_);
    if (closed_) return;
    closed_ = true;
  }
  {
    std::lock_guard lock(queue_mu_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
  stop_cv_.notify_all();
  if (readers_) readers_->Stop();  // reads in progress finish; queued ones fail
  if (writer_thread_.joinable()) writer_thread_.join();
  if (checkpoint_thread_.joinable()) checkpoint_thread_.join();
  {
    std::lock_guard lock(watch_mu_);
    for (auto& weak : watchers_) {
      if (auto w = weak.lock()) w->Stop();
    }
    watchers_.clear();
  }
  if (writer_) (void)writer_->Exec("PRAGMA wal_checkpoint(TRUNCATE)");
  writer_.reset();
}

Result<void> SqliteKV::Healthy() const {
  std::lock_guard lock(health_mu_);
  if (!fatal_error_.empty()) return std::unexpected(UnreachableError(fatal_error_));
  return {};
}

template <class T>
Awaitable<Result<T>> SqliteKV::Read(std::function<Result<T>(Connection&)> read) {
  auto self = shared_from_this();
  // A named local, not a lambda temporary inside co_await (docs/architecture.md).
  std::function<void(std::function<void(Result<T>)>)> submit =
      [self, read = std::move(read)](std::function<void(Result<T>)> done) mutable {
        self->readers_->Submit([read = std::move(read), done = std::move(done)](
                                   Connection* conn, const StorageError& error) mutable {
          if (!conn) {
            done(std::unexpected(error));
            return;
          }
          done(read(*conn));
        });
      };
  co_return co_await AwaitCallback<Result<T>>(std::move(submit));
}

Awaitable<Result<RangeResult>> SqliteKV::Range(std::string key, RangeOptions options) {
  std::function<Result<RangeResult>(Connection&)> read =
      [key = std::move(key), options = std::move(options)](Connection& conn) {
        return ReadRange(conn, key, options);
      };
  co_return co_await Read<RangeResult>(std::move(read));
}

Awaitable<Result<TxnResult>> SqliteKV::Create(std::string key, std::string value) {
  WriteOp op{WriteOp::Kind::kCreate, std::move(key), std::move(value), 0, nullptr};
  co_return co_await Submit(std::move(op));
}

Awaitable<Result<TxnResult>> SqliteKV::Update(std::string key, std::string value,
                                              int64_t expected_revision) {
  WriteOp op{WriteOp::Kind::kUpdate, std::move(key), std::move(value), expected_revision, nullptr};
  co_return co_await Submit(std::move(op));
}

Awaitable<Result<TxnResult>> SqliteKV::Delete(std::string key, int64_t expected_revision) {
  WriteOp op{WriteOp::Kind::kDelete, std::move(key), "", expected_revision, nullptr};
  co_return co_await Submit(std::move(op));
}

Awaitable<Result<TxnResult>> SqliteKV::Submit(WriteOp op) {
  if (op.value.size() > kMaxValueBytes) {
    co_return std::unexpected(
        StorageError{ErrorCode::kTooLarge, op.key, "request is too large", 0, nullptr});
  }
  auto self = shared_from_this();
  // A named local, not a lambda temporary inside co_await (docs/architecture.md).
  std::function<void(std::function<void(Result<TxnResult>)>)> enqueue =
      [self, op = std::move(op)](std::function<void(Result<TxnResult>)> done) mutable {
        op.done = std::move(done);
        std::unique_lock lock(self->queue_mu_);
        if (self->stopping_) {
          lock.unlock();
          op.done(std::unexpected(UnreachableError("storage is closed")));
          return;
        }
        self->ops_.push_back(std::move(op));
        lock.unlock();
        self->queue_cv_.notify_one();
      };
  co_return co_await AwaitCallback<Result<TxnResult>>(std::move(enqueue));
}

Awaitable<Result<std::unique_ptr<KVWatch>>> SqliteKV::Watch(std::string key,
                                                            KVWatchOptions options) {
  const int64_t start = options.start_revision ? options.start_revision : revision_.load() + 1;
  if (start <= compact_revision_.load()) {
    co_return std::unexpected(TooOldError(start, compact_revision_.load() + 1));
  }
  auto watcher = std::make_shared<WatchQueue>(std::move(key), std::move(options.end), start);
  std::weak_ptr<SqliteKV> weak = weak_from_this();
  watcher->SetProgressSource([weak]() -> int64_t {
    auto kv = weak.lock();
    return kv ? kv->revision_.load() : 0;
  });
  {
    // Fast path: everything from start on is still in the in-memory history.
    std::lock_guard lock(watch_mu_);
    const int64_t published = history_.empty() ? revision_.load() : history_.back().revision;
    const bool covered =
        start > published || (!history_.empty() && history_.front().revision <= start);
    if (covered) {
      for (const KVEvent& e : history_) {
        if (e.revision >= start && !watcher->Offer(e)) break;
      }
      watchers_.push_back(watcher);
      co_return std::unique_ptr<KVWatch>(new WatchHandle(watcher));
    }
  }
  // Slow path: read the log on the writer thread, between batches, so that nothing is
  // published while the watcher catches up.
  auto self = shared_from_this();
  std::function<void(std::function<void(Result<void>)>)> enqueue =
      [self, watcher, start](std::function<void(Result<void>)> done) {
        std::unique_lock lock(self->queue_mu_);
        if (self->stopping_) {
          lock.unlock();
          done(std::unexpected(UnreachableError("storage is closed")));
          return;
        }
        self->tasks_.push_back(
            [self, watcher, start, done] { done(self->RegisterFromLog(watcher, start)); });
        lock.unlock();
        self->queue_cv_.notify_one();
      };
  auto registered = co_await AwaitCallback<Result<void>>(std::move(enqueue));
  if (!registered) co_return std::unexpected(registered.error());
  co_return std::unique_ptr<KVWatch>(new WatchHandle(watcher));
}

Awaitable<Result<void>> SqliteKV::Compact(int64_t revision) {
  if (revision > revision_.load()) {
    co_return std::unexpected(StorageError{ErrorCode::kTooLargeResourceVersion, "",
                                           "mvcc: required revision is a future revision",
                                           revision_.load(), nullptr});
  }
  auto self = shared_from_this();
  std::function<void(std::function<void(Result<void>)>)> enqueue =
      [self, revision](std::function<void(Result<void>)> done) {
        std::unique_lock lock(self->queue_mu_);
        if (self->stopping_) {
          lock.unlock();
          done(std::unexpected(UnreachableError("storage is closed")));
          return;
        }
        self->compactions_.push_back({revision, std::move(done)});
        lock.unlock();
        self->queue_cv_.notify_one();
      };
  co_return co_await AwaitCallback<Result<void>>(std::move(enqueue));
}

Awaitable<Result<KVStats>> SqliteKV::Stats() {
  std::function<Result<KVStats>(Connection&)> read = ReadStats;
  auto s = co_await Read<KVStats>(std::move(read));
  if (!s) co_return s;
  s->revision = revision_.load();
  s->compact_revision = compact_revision_.load();
  s->commits = commits_.load();
  s->committed_writes = committed_writes_.load();
  s->file_bytes = FileSize(options_.path) + FileSize(options_.path + "-wal");
  co_return s;
}

}  // namespace storage
