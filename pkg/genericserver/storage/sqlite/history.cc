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

class PastReader {
 public:
  PastReader(Connection& db, int64_t at) : db_(db), at_(at) {}

  std::optional<Row> Load(int64_t revision) {
    Statement& s =
        db_.Prepare("SELECT prev_revision, create_revision, deleted FROM log WHERE revision = ?1");
    s.Bind(1, revision);
    std::optional<Row> row;
    if (s.Step() == SQLITE_ROW) row = Row{revision, s.Int(0), s.Int(1), s.Int(2) != 0};
    s.Reset();
    return row;
  }

  // From a row newer than `at` (a version or a deletion marker) back to the version that
  // was live at `at`, if the chain reaches one.
  std::optional<Row> WalkBack(int64_t from) {
    auto row = Load(from);
    while (row && row->revision > at_) {
      if (row->prev == 0) return std::nullopt;  // created after `at`
      row = Load(row->prev);
    }
    if (!row || row->deleted) return std::nullopt;
    return row;
  }

  std::string Value(int64_t revision) {
    Statement& s = db_.Prepare("SELECT value FROM log WHERE revision = ?1");
    s.Bind(1, revision);
    std::string v;
    if (s.Step() == SQLITE_ROW) v = std::string(s.Blob(0));
    s.Reset();
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
    Statement& s = db.Prepare("SELECT revision, key, deleted FROM log WHERE revision > ?1");
    s.Bind(1, at);
    int rc;
    while ((rc = s.Step()) == SQLITE_ROW) {
      std::string k(s.Text(1));
      if (!InRange(k, key, end)) continue;
      auto& markers = changed[k];
      if (s.Int(2)) markers.push_back(s.Int(0));
    }
    s.Reset();
    if (rc != SQLITE_DONE) return std::unexpected(InternalError(db.Error()));
  }
  // Where each changed key stands now.
  std::map<std::string, int64_t> now;  // key -> current revision
  for (const auto& [k, markers] : changed) {
    Statement& s = db.Prepare("SELECT revision FROM current WHERE key = ?1");
    s.BindText(1, k);
    if (s.Step() == SQLITE_ROW) now[k] = s.Int(0);
    s.Reset();
  }
  // The version live at `at` of a changed key: back from its current row, or from one
  // of its deletion markers.
  std::map<std::string, std::optional<Row>> resolved;
  for (const auto& [k, markers] : changed) {
    std::optional<Row> row;
    if (auto it = now.find(k); it != now.end()) row = reader.WalkBack(it->second);
    for (size_t i = 0; !row && i < markers.size(); ++i) row = reader.WalkBack(markers[i]);
    resolved.emplace(k, std::move(row));
  }

  RangeResult out;
  // Count: the keys live now, corrected by what the changed keys were at `at`.
  {
    Statement& c = end.empty()
                       ? db.Prepare("SELECT COUNT(*) FROM current WHERE key = ?1")
                       : db.Prepare("SELECT COUNT(*) FROM current WHERE key >= ?1 AND key < ?2");
    c.BindText(1, key);
    if (!end.empty()) c.BindText(2, end);
    if (c.Step() == SQLITE_ROW) out.count = c.Int(0);
    c.Reset();
  }
  for (const auto& [k, row] : resolved) out.count += (row ? 1 : 0) - (now.contains(k) ? 1 : 0);
  if (count_only) return out;

  // In key order: the current keys (unchanged ones as they are, changed ones resolved)
  // merged with the keys deleted since `at` that were live then. Stops at the limit.
  auto add = [&](const std::string& k, int64_t revision, int64_t create_revision) {
    if (limit > 0 && static_cast<int64_t>(out.kvs.size()) >= limit) {
      out.more = true;
      return false;
    }
    out.kvs.push_back(KeyValue{k, std::make_shared<const std::string>(reader.Value(revision)),
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
  Statement& cursor = end.empty() ? db.Prepare("SELECT key, revision FROM current WHERE key = ?1")
                                  : db.Prepare(
                                        "SELECT key, revision FROM current WHERE key >= ?1 AND "
                                        "key < ?2 ORDER BY key");
  cursor.BindText(1, key);
  if (!end.empty()) cursor.BindText(2, end);
  bool open = true;
  while (open && cursor.Step() == SQLITE_ROW) {
    const std::string k(cursor.Text(0));
    const int64_t rev = cursor.Int(1);
    while (open && gone != resolved.end() && gone->first < k) {
      open = add(gone->first, gone->second->revision, gone->second->create_revision);
      ++gone;
      skip_to_gone();
    }
    if (!open) break;
    if (auto it = resolved.find(k); it != resolved.end()) {
      if (it->second) open = add(k, it->second->revision, it->second->create_revision);
    } else if (auto row = reader.Load(rev)) {  // unchanged since `at`
      open = add(k, row->revision, row->create_revision);
    }
  }
  cursor.Reset();
  while (open && gone != resolved.end()) {
    open = add(gone->first, gone->second->revision, gone->second->create_revision);
    ++gone;
    skip_to_gone();
  }
  return out;
}

}  // namespace storage::sqlite
