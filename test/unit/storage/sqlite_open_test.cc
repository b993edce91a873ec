// Opening a sqlite store: what is not ours, or newer, is refused and left untouched.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "pkg/genericserver/storage/sqlite/sqlite_kv.h"
#include "test/unit/storage/harness.h"

TEST_CASE("sqlite refuses files it did not make, or from a newer build, and leaves them alone") {
  const std::string dir = storagetest::MakeTempDir("schema");
  auto open = [](const std::string& path) {
    storage::SqliteOptions o;
    o.path = path;
    return storage::SqliteKV::Open(o);
  };
  auto bytes = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  auto run_sql = [](const std::string& path, const std::string& sql) {
    std::string cmd = "sqlite3 '" + path + "' \"" + sql + "\"";
    REQUIRE(std::system(cmd.c_str()) == 0);
  };

  // Someone else's database.
  const std::string foreign = dir + "/foreign.db";
  run_sql(foreign, "CREATE TABLE users(id INTEGER); INSERT INTO users VALUES (1);");
  const std::string before = bytes(foreign);
  auto r1 = open(foreign);
  REQUIRE_FALSE(r1);
  CHECK(r1.error().find("not created by kube-apiserver") != std::string::npos);
  CHECK(bytes(foreign) == before);

  // A database of ours from a newer build.
  const std::string newer = dir + "/newer.db";
  {
    auto kv = open(newer);
    REQUIRE(kv);
    REQUIRE(storagetest::Run((*kv)->Create("/k", "{}")));
    (*kv)->Close();
  }
  run_sql(newer, "PRAGMA user_version=2;");
  const std::string newer_before = bytes(newer);
  auto r2 = open(newer);
  REQUIRE_FALSE(r2);
  CHECK(r2.error().find("schema version 2, newer than this build understands (1)") !=
        std::string::npos);
  CHECK(bytes(newer) == newer_before);

  // Not a database at all.
  const std::string junk = dir + "/junk.db";
  std::ofstream(junk) << std::string(8192, 'x');
  auto r3 = open(junk);
  REQUIRE_FALSE(r3);
  CHECK(r3.error().find("not a database") != std::string::npos);

  // Ours, same version: opens, and the data is there.
  run_sql(newer, "PRAGMA user_version=1;");
  auto r4 = open(newer);
  REQUIRE(r4);
  storage::RangeOptions single;
  auto got = storagetest::Run((*r4)->Range("/k", single));
  REQUIRE(got);
  CHECK(got->kvs.size() == 1);
  (*r4)->Close();
  std::filesystem::remove_all(dir);
}
