#pragma once
// Thin RAII wrappers over the SQLite C API, for the sqlite backend only. A Connection
// and its statements belong to one thread at a time.

#include <cstdint>
#include <expected>
#include <map>
#include <memory>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace storage::sqlite {

class Statement {
 public:
  explicit Statement(sqlite3_stmt* s) : s_(s) {}
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& Bind(int index, int64_t value);
  Statement& BindText(int index, std::string_view value);
  Statement& BindBlob(int index, std::string_view value);
  Statement& BindNull(int index);
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step();
  int64_t Int(int column) const;
  std::string_view Text(int column) const;
  std::string_view Blob(int column) const;
  bool IsNull(int column) const;
  // Resets and clears bindings for the next use.
  void Reset();

 private:
  sqlite3_stmt* s_;
};

class Connection {
 public:
  // flags: SQLITE_OPEN_* values.
  static std::expected<std::unique_ptr<Connection>, std::string> Open(const std::string& path,
                                                                      int flags);
  ~Connection();

  std::expected<void, std::string> Exec(const std::string& sql);
  // A cached prepared statement, reset and ready; valid until the connection closes.
  // Fails with SQLite's message (a busy or corrupt schema, a missing table, no memory):
  // the SQL is ours, but whether it prepares depends on the file, so it is an error
  // value, never an exception or an abort.
  std::expected<Statement*, std::string> Prepare(const std::string& sql);
  // A single integer from a query like "PRAGMA user_version".
  std::expected<int64_t, std::string> QueryInt(const std::string& sql);
  std::string Error() const;
  // Rows changed by the last INSERT, UPDATE or DELETE.
  int Changes() const;
  sqlite3* Raw() { return db_; }

 private:
  explicit Connection(sqlite3* db) : db_(db) {}
  sqlite3* db_;
  std::map<std::string, std::unique_ptr<Statement>, std::less<>> statements_;
};

// A read transaction for the scope: every query in it sees one snapshot.
struct ScopedRead {
  explicit ScopedRead(Connection& c);
  ~ScopedRead();
  Connection& conn;
  bool ok;
};

}  // namespace storage::sqlite
