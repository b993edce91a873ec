// Opening a sqlite store: what is not ours, or newer, is refused and left untouched.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

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

TEST_CASE("sqlite gives the space of deleted objects back to the file system") {
  const std::string dir = storagetest::MakeTempDir("vacuum");
  storage::SqliteOptions o;
  o.path = dir + "/store.db";
  o.checkpoint_interval = std::chrono::milliseconds(20);
  auto kv = storage::SqliteKV::Open(o);
  REQUIRE(kv);
  const std::string big(10000, 'v');
  std::vector<int64_t> revisions;
  for (int i = 0; i < 2000; ++i) {
    auto r = storagetest::Run((*kv)->Create("/big/" + std::to_string(i), big));
    REQUIRE(r);
    revisions.push_back(r->revision);
  }
  auto file_size = [&] {
    std::error_code ec;
    return std::filesystem::file_size(o.path, ec);
  };
  auto wait_for_size = [&](auto done) {
    for (int i = 0; i < 1000 && !done(file_size()); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return file_size();
  };
  const auto full = wait_for_size([](uintmax_t s) { return s > 20'000'000; });
  REQUIRE(full > 20'000'000);
  for (int i = 0; i < 2000; ++i) {
    REQUIRE(storagetest::Run((*kv)->Delete("/big/" + std::to_string(i), revisions[i]))->succeeded);
  }
  auto stats = storagetest::Run((*kv)->Stats());
  REQUIRE(storagetest::Run((*kv)->Compact(stats->revision)));
  const auto shrunk = wait_for_size([](uintmax_t s) { return s < 2'000'000; });
  INFO("file size full " << full << ", after deleting and compacting " << shrunk);
  CHECK(shrunk < 2'000'000);
  (*kv)->Close();
  std::filesystem::remove_all(dir);
}
