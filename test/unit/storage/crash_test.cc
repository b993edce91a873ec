// Kills a writer process with SIGKILL at random moments; every write it reported as
// acknowledged must be there on reopen, and revisions must keep going up.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "pkg/genericserver/storage/sqlite/sqlite_kv.h"
#include "test/unit/storage/harness.h"

namespace {

struct Acked {
  std::map<std::string, int64_t> writes;  // key -> revision
  int64_t max_revision = 0;
};

// Runs the writer for about `millis`, then SIGKILLs it; returns what it acknowledged.
Acked RunAndKill(const std::string& db, const std::string& tag, int millis) {
  int out[2];
  REQUIRE(pipe(out) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    execl(KAS_CRASH_WRITER, KAS_CRASH_WRITER, db.c_str(), tag.c_str(), nullptr);
    _exit(127);
  }
  close(out[1]);
  std::string text;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(millis);
  char buf[65536];
  while (std::chrono::steady_clock::now() < deadline) {
    fd_set fds;
    FD_ZERO(&fds);
    FD_SET(out[0], &fds);
    timeval tv{0, 10000};
    if (select(out[0] + 1, &fds, nullptr, nullptr, &tv) > 0) {
      ssize_t n = read(out[0], buf, sizeof buf);
      if (n <= 0) break;
      text.append(buf, static_cast<size_t>(n));
    }
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ssize_t n;
  while ((n = read(out[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  close(out[0]);
  // A line cut by the kill has no newline: it does not count.
  if (auto last = text.rfind('\n'); last != std::string::npos) text.resize(last + 1);
  Acked acked;
  std::istringstream lines(text);
  std::string key;
  int64_t rev;
  while (lines >> key >> rev) {
    acked.writes[key] = rev;
    acked.max_revision = std::max(acked.max_revision, rev);
  }
  return acked;
}

}  // namespace

TEST_CASE("sqlite crash safety: SIGKILL loses no acknowledged write") {
  const std::string dir = storagetest::MakeTempDir("crash");
  const std::string db = dir + "/store.db";
  std::mt19937 rng(std::random_device{}());
  int64_t previous_max = 0;
  size_t total = 0;
  for (int round = 0; round < 5; ++round) {
    INFO("round " << round);
    Acked acked = RunAndKill(db, "r" + std::to_string(round),
                             std::uniform_int_distribution<int>(150, 600)(rng));
    REQUIRE(acked.writes.size() > 0);
    total += acked.writes.size();
    CHECK(acked.max_revision > previous_max);  // revisions continue upward across restarts

    storage::SqliteOptions options;
    options.path = db;
    auto kv = storage::SqliteKV::Open(options);
    REQUIRE(kv);
    size_t missing = 0;
    int64_t store_revision = 0;
    for (const auto& [key, rev] : acked.writes) {
      storage::RangeOptions single;
      auto got = storagetest::Run((*kv)->Range(key, single));
      REQUIRE(got);
      if (got->kvs.empty() || got->kvs.front().mod_revision != rev) ++missing;
      store_revision = got->revision;
    }
    CHECK(missing == 0);
    CHECK(store_revision >= acked.max_revision);
    // A write after the crash gets a newer revision than anything acknowledged.
    auto next = storagetest::Run((*kv)->Create("/crash/after/" + std::to_string(round), "{}"));
    REQUIRE(next);
    CHECK(next->revision > acked.max_revision);
    previous_max = next->revision;
    (*kv)->Close();
  }
  INFO("acknowledged writes checked: " << total);
  CHECK(total > 100);
  std::filesystem::remove_all(dir);
}
