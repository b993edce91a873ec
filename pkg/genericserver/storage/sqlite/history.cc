#include "pkg/genericserver/storage/sqlite/history.h"

#include <sqlite3.h>

#include <map>
#include <optional>
#include <vector>

#include "pkg/genericserver/storage/sqlite/db.h"

namespace storage::sqlite {
namespace {

struct Row {
  int64_t revision = 0;
  int64_t prev = 0;
  int64_t create_revision = 0;
  bool deleted = false;
};

StorageError ReadFailed(const std::string& message) {
  return UnreachableError("storage read failed: " + message);
}

// A failed prepare or step: the read fails with SQLite's message.
#define KAS_TRY(var, expr)                                         \
  auto var##_result = (expr);                                      \
  if (!var##_result) return std::unexpected(var##_result.error()); \
  auto& var = *var##_result

std::expected<Statement*, StorageError> Prepare(Connection& db, const std::string& sql) {
  auto s = db.Prepare(sql);
  if (!s) return std::unexpected(ReadFailed(s.error()));
  return *s;
}

// SQLITE_ROW: true; SQLITE_DONE: false; anything else an error.
std::expected<bool, StorageError> Step(Connection& db, Statement& s) {
  const int rc = s.Step();
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  s.Reset();
  return std::unexpected(ReadFailed(db.Error()));
}

class PastReader {
 public:
  PastReader(Connection& db, int64_t at) : db_(db), at_(at) {}

  Result<std::optional<Row>> Load(int64_t revision) {
    KAS_TRY(s, Prepare(db_,
                       "SELECT prev_revision, create_revision, deleted FROM log "
                       "WHERE revision = ?1"));
    s->Bind(1, revision);
    KAS_TRY(found, Step(db_, *s));
    std::optional<Row> row;
    if (found) row = Row{revision, s->Int(0), s->Int(1), s->Int(2) != 0};
    s->Reset();
    return row;
  }

  // From a row newer than `at` (a version or a deletion marker) back to the version that
  // was live at `at`, if the chain reaches one.
  Result<std::optional<Row>> WalkBack(int64_t from) {
    KAS_TRY(row, Load(from));
    while (row && row->revision > at_) {
      if (row->prev == 0) return std::nullopt;  // created after `at`
      KAS_TRY(prev, Load(row->prev));
      row = prev;
    }
    if (!row || row->deleted) return std::nullopt;
    return row;
  }

  Result<std::string> Value(int64_t revision) {
    KAS_TRY(s, Prepare(db_, "SELECT value FROM log WHERE revision = ?1"));
    s->Bind(1, revision);
    KAS_TRY(found, Step(db_, *s));
    std::string v;
    if (found) v = std::string(s->Blob(0));
    s->Reset();
    return v;
  }

 private:
  Connection& db_;
  int64_t at_;
};

bool InRange(const std::string& k, const std::string& key, const std::string& end) {
  return end.empty() ? k == key : (k >= key && k < end);
}

}  // namespace

Result<RangeResult> RangeAt(Connection& db, const std::string& key, const std::string& end,
                            int64_t at, int64_t limit, bool count_only) {
  PastReader reader(db, at);
  // Every key of the range changed since `at`, with its deletion markers since then.
  std::map<std::string, std::vector<int64_t>> changed;
  {
    KAS_TRY(s, Prepare(db, "SELECT revision, key, deleted FROM log WHERE revision > ?1"));
    s->Bind(1, at);
    for (;;) {
      KAS_TRY(found, Step(db, *s));
      if (!found) break;
      std::string k(s->Text(1));
      if (!InRange(k, key, end)) continue;
      auto& markers = changed[k];
      if (s->Int(2)) markers.push_back(s->Int(0));
    }
    s->Reset();
  }
  // Where each changed key stands now.
  std::map<std::string, int64_t> now;  // key -> current revision
  for (const auto& [k, markers] : changed) {
    KAS_TRY(s, Prepare(db, "SELECT revision FROM current WHERE key = ?1"));
    s->BindText(1, k);
    KAS_TRY(found, Step(db, *s));
    if (found) now[k] = s->Int(0);
    s->Reset();
  }
  // The version live at `at` of a changed key: back from its current row, or from one
  // of its deletion markers.
  std::map<std::string, std::optional<Row>> resolved;
  for (const auto& [k, markers] : changed) {
    std::optional<Row> row;
    if (auto it = now.find(k); it != now.end()) {
      KAS_TRY(back, reader.WalkBack(it->second));
      row = back;
    }
    for (size_t i = 0; !row && i < markers.size(); ++i) {
      KAS_TRY(back, reader.WalkBack(markers[i]));
      row = back;
    }
    resolved.emplace(k, std::move(row));
  }

  RangeResult out;
  // Count: the keys live now, corrected by what the changed keys were at `at`.
  {
    KAS_TRY(c, Prepare(db, end.empty() ? "SELECT COUNT(*) FROM current WHERE key = ?1"
                                       : "SELECT COUNT(*) FROM current WHERE key >= ?1 AND "
                                         "key < ?2"));
    c->BindText(1, key);
    if (!end.empty()) c->BindText(2, end);
    KAS_TRY(found, Step(db, *c));
    if (found) out.count = c->Int(0);
    c->Reset();
  }
  for (const auto& [k, row] : resolved) out.count += (row ? 1 : 0) - (now.contains(k) ? 1 : 0);
  if (count_only) return out;

  // In key order: the current keys (unchanged ones as they are, changed ones resolved)
  // merged with the keys deleted since `at` that were live then. Stops at the limit.
  // false: the limit is reached.
  auto add = [&](const std::string& k, int64_t revision, int64_t create_revision) -> Result<bool> {
    if (limit > 0 && static_cast<int64_t>(out.kvs.size()) >= limit) {
      out.more = true;
      return false;
    }
    KAS_TRY(value, reader.Value(revision));
    out.kvs.push_back(KeyValue{k, std::make_shared<const std::string>(std::move(value)),
                               create_revision, revision});
    return true;
  };
  // Keys deleted since `at` that were live then (changed keys still current are met
  // through the cursor).
  auto gone = resolved.begin();
  auto skip_to_gone = [&]() {
    while (gone != resolved.end() && (!gone->second || now.contains(gone->first))) ++gone;
  };
  skip_to_gone();
  KAS_TRY(cursor, Prepare(db, end.empty() ? "SELECT key, revision FROM current WHERE key = ?1"
                                          : "SELECT key, revision FROM current WHERE key >= ?1 "
                                            "AND key < ?2 ORDER BY key"));
  cursor->BindText(1, key);
  if (!end.empty()) cursor->BindText(2, end);
  bool open = true;
  while (open) {
    KAS_TRY(found, Step(db, *cursor));
    if (!found) break;
    const std::string k(cursor->Text(0));
    const int64_t rev = cursor->Int(1);
    while (open && gone != resolved.end() && gone->first < k) {
      KAS_TRY(added, add(gone->first, gone->second->revision, gone->second->create_revision));
      open = added;
      ++gone;
      skip_to_gone();
    }
    if (!open) break;
    if (auto it = resolved.find(k); it != resolved.end()) {
      if (it->second) {
        KAS_TRY(added, add(k, it->second->revision, it->second->create_revision));
        open = added;
      }
      continue;
    }
    // Unchanged since `at`.
    KAS_TRY(row, reader.Load(rev));
    if (row) {
      KAS_TRY(added, add(k, row->revision, row->create_revision));
      open = added;
    }
  }
  cursor->Reset();
  while (open && gone != resolved.end()) {
    KAS_TRY(added, add(gone->first, gone->second->revision, gone->second->create_revision));
    open = added;
    ++gone;
    skip_to_gone();
  }
  return out;
}

#undef KAS_TRY

}  // namespace storage::sqlite
