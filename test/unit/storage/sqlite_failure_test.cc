// A failing sqlite database: statements that no longer prepare or step (tables renamed
// away by another connection, as a damaged or foreign-edited schema would do) fail the
// writes of their batch and the reads as storage errors. The writer thread survives, the
// failed writes leave nothing behind, and once the schema is back everything works.
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <filesystem>

#include "pkg/genericserver/storage/sqlite/db.h"
#include "pkg/genericserver/storage/sqlite/sqlite_kv.h"
#include "test/unit/storage/harness.h"

using storage::ErrorCode;
using storage::KVWatchOptions;
using storage::RangeOptions;
using storagetest::Run;

TEST_CASE("sqlite: prepare and step failures are storage errors and the writer goes on") {
  const std::string dir = storagetest::MakeTempDir("sqlite-failure");
  storage::SqliteOptions options;
  options.path = dir + "/state.db";
  options.history_events = 1;  // a watch from the start reads the log
  auto opened = storage::SqliteKV::Open(options);
  REQUIRE(opened);
  storage::SqliteKV& kv = **opened;
  auto a = Run(kv.Create("/a", "1"));
  REQUIRE(a);
  REQUIRE(a->succeeded);
  auto b = Run(kv.Create("/b", "1"));
  REQUIRE(b);
  REQUIRE(b->succeeded);

  auto other = storage::sqlite::Connection::Open(options.path, SQLITE_OPEN_READWRITE);
  REQUIRE(other);
  sqlite3_busy_timeout((*other)->Raw(), 5000);
  auto sql = [&](const std::string& statement) {
    auto r = (*other)->Exec(statement);
    INFO(statement << ": " << (r ? "ok" : r.error()));
    REQUIRE(r);
  };
  RangeOptions everything;
  everything.end = std::string(1, '\0');
  KVWatchOptions from_start;
  from_start.start_revision = 1;
  from_start.end = std::string(1, '\0');

  sql("ALTER TABLE current RENAME TO current_away");
  // The first update prepares its read of `current` now: the prepare fails.
  auto update = Run(kv.Update("/a", "2", a->revision));
  REQUIRE_FALSE(update);
  CHECK(update.error().code == ErrorCode::kUnreachable);
  CHECK_THAT(update.error().message, Catch::Contains("no such table: current"));
  // A create steps a statement prepared before the change: the step fails.
  auto create = Run(kv.Create("/c", "1"));
  REQUIRE_FALSE(create);
  CHECK(create.error().code == ErrorCode::kUnreachable);
  // Reads, on a reader thread, fail the same way.
  RangeOptions one;
  auto get = Run(kv.Range("/a", one));
  REQUIRE_FALSE(get);
  CHECK(get.error().code == ErrorCode::kUnreachable);
  auto list = Run(kv.Range("/", everything));
  REQUIRE_FALSE(list);
  CHECK(list.error().code == ErrorCode::kUnreachable);
  CHECK(kv.Healthy());
  sql("ALTER TABLE current_away RENAME TO current");

  sql("ALTER TABLE log RENAME TO log_away");
  // A watch from before the in-memory history reads the log on the writer thread.
  auto watch = Run(kv.Watch("/", from_start));
  REQUIRE_FALSE(watch);
  CHECK(watch.error().code == ErrorCode::kUnreachable);
  // A read of the past walks the log.
  RangeOptions past;
  past.revision = a->revision;
  auto old = Run(kv.Range("/a", past));
  REQUIRE_FALSE(old);
  CHECK(old.error().code == ErrorCode::kUnreachable);
  sql("ALTER TABLE log_away RENAME TO log");

  // Everything works again, and the failed writes left nothing behind.
  auto update2 = Run(kv.Update("/a", "2", a->revision));
  REQUIRE(update2);
  CHECK(update2->succeeded);
  CHECK(update2->revision == b->revision + 1);
  auto create2 = Run(kv.Create("/c", "1"));
  REQUIRE(create2);
  CHECK(create2->succeeded);
  auto list2 = Run(kv.Range("/", everything));
  REQUIRE(list2);
  CHECK(list2->kvs.size() == 3);
  CHECK(list2->revision == create2->revision);
  auto watch2 = Run(kv.Watch("/", from_start));
  REQUIRE(watch2);
  for (int64_t revision = 1; revision <= create2->revision; ++revision) {
    auto e = Run((*watch2)->Next());
    REQUIRE(e.has_value());   // the watch goes on
    REQUIRE(e->has_value());  // with an event, not an error
    CHECK((*e)->revision == revision);
  }

  // Closed: reads and writes fail as unreachable, they do not hang.
  (*watch2)->Stop();
  other->reset();
  kv.Close();
  auto closed_read = Run(kv.Range("/a", one));
  REQUIRE_FALSE(closed_read);
  CHECK(closed_read.error().code == ErrorCode::kUnreachable);
  auto closed_write = Run(kv.Create("/d", "1"));
  REQUIRE_FALSE(closed_write);
  CHECK(closed_write.error().code == ErrorCode::kUnreachable);
  opened->reset();
  std::filesystem::remove_all(dir);
}
