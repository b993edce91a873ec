#include "pkg/genericserver/storage/sqlite/db.h"

#include <sqlite3.h>

namespace storage::sqlite {

Statement::~Statement() { sqlite3_finalize(s_); }

Statement& Statement::Bind(int index, int64_t value) {
  sqlite3_bind_int64(s_, index, value);
  return *this;
}

Statement& Statement::BindText(int index, std::string_view value) {
  sqlite3_bind_text(s_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::BindBlob(int index, std::string_view value) {
  sqlite3_bind_blob(s_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::BindNull(int index) {
  sqlite3_bind_null(s_, index);
  return *this;
}

int Statement::Step() { return sqlite3_step(s_); }

int64_t Statement::Int(int column) const { return sqlite3_column_int64(s_, column); }

std::string_view Statement::Text(int column) const {
  auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, column));
  return p ? std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(s_, column)))
           : std::string_view();
}

std::string_view Statement::Blob(int column) const {
  auto* p = static_cast<const char*>(sqlite3_column_blob(s_, column));
  return p ? std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(s_, column)))
           : std::string_view();
}

bool Statement::IsNull(int column) const { return sqlite3_column_type(s_, column) == SQLITE_NULL; }

void Statement::Reset() {
  sqlite3_reset(s_);
  sqlite3_clear_bindings(s_);
}

std::expected<std::unique_ptr<Connection>, std::string> Connection::Open(const std::string& path,
                                                                         int flags) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string err = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return std::unexpected("open " + path + ": " + err);
  }
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<Connection>(new Connection(db));
}

Connection::~Connection() {
  statements_.clear();
  sqlite3_close(db_);
}

std::expected<void, std::string> Connection::Exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string message = err ? err : Error();
    sqlite3_free(err);
    return std::unexpected(message);
  }
  return {};
}

std::expected<Statement*, std::string> Connection::Prepare(const std::string& sql) {
  auto it = statements_.find(sql);
  if (it == statements_.end()) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v3(db_, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr) !=
        SQLITE_OK) {
      std::string error = Error();  // "no such table: current", "database is locked"
      sqlite3_finalize(s);          // null, or a statement SQLite made anyway
      return std::unexpected(std::move(error));
    }
    it = statements_.emplace(sql, std::make_unique<Statement>(s)).first;
  }
  it->second->Reset();
  return it->second.get();
}

std::expected<int64_t, std::string> Connection::QueryInt(const std::string& sql) {
  auto prepared = Prepare(sql);
  if (!prepared) return std::unexpected(prepared.error());
  Statement& s = **prepared;
  int rc = s.Step();
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return std::unexpected(Error());
  int64_t v = rc == SQLITE_ROW ? s.Int(0) : 0;
  s.Reset();
  return v;
}

std::string Connection::Error() const { return sqlite3_errmsg(db_); }

int Connection::Changes() const { return sqlite3_changes(db_); }

ScopedRead::ScopedRead(Connection& c) : conn(c), ok(c.Exec("BEGIN").has_value()) {}
ScopedRead::~ScopedRead() {
  if (ok) (void)conn.Exec("COMMIT");
}

}  // namespace storage::sqlite
