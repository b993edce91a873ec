// The sqlite backend's reads of the past, checked against the memory backend (the
// model) after random histories of creates, updates, deletes, re-creates and
// compactions: every range, at every revision still available, must agree.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include "pkg/genericserver/storage/memory/memory_kv.h"
#include "pkg/genericserver/storage/sqlite/sqlite_kv.h"
#include "test/unit/storage/harness.h"

namespace {

using storage::KV;
using storage::RangeOptions;

std::string Describe(const storage::RangeResult& r) {
  std::string s = "count=" + std::to_string(r.count) + " more=" + (r.more ? "1" : "0") + " [";
  for (const auto& kv : r.kvs) {
    s += kv.key + "@" + std::to_string(kv.mod_revision) + "/" + std::to_string(kv.create_revision) +
         "=" + *kv.value + " ";
  }
  return s + "]";
}

// Applies the same random write to both; both must agree on the outcome.
void RandomWrite(std::mt19937& rng, KV& model, KV& sqlite, const std::vector<std::string>& keys) {
  const std::string& key = keys[rng() % keys.size()];
  RangeOptions single;
  auto cur = storagetest::Run(model.Range(key, single));
  REQUIRE(cur);
  const std::string value = std::to_string(rng() % 1000);
  storage::Result<storage::TxnResult> a, b;
  if (cur->kvs.empty()) {
    a = storagetest::Run(model.Create(key, value));
    b = storagetest::Run(sqlite.Create(key, value));
  } else if (rng() % 3 == 0) {
    a = storagetest::Run(model.Delete(key, cur->kvs[0].mod_revision));
    b = storagetest::Run(sqlite.Delete(key, cur->kvs[0].mod_revision));
  } else {
    a = storagetest::Run(model.Update(key, value, cur->kvs[0].mod_revision));
    b = storagetest::Run(sqlite.Update(key, value, cur->kvs[0].mod_revision));
  }
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(a->succeeded);
  REQUIRE(b->succeeded);
  REQUIRE(a->revision == b->revision);
}

}  // namespace

TEST_CASE("sqlite reads of the past agree with the model") {
  const std::string dir = storagetest::MakeTempDir("history");
  storage::SqliteOptions options;
  options.path = dir + "/store.db";
  options.compaction_step_revisions = 7;  // many small steps
  auto sqlite = storage::SqliteKV::Open(options);
  REQUIRE(sqlite);
  auto model = storage::MemoryKV::New();
  std::mt19937 rng(12345);
  const std::vector<std::string> keys = {"/a/1", "/a/2", "/a/3", "/a/4", "/b/1", "/b/2", "/c"};
  int64_t compacted = 0;
  for (int round = 0; round < 8; ++round) {
    for (int i = 0; i < 40; ++i) RandomWrite(rng, *model, **sqlite, keys);
    auto newest = storagetest::Run(model->Range("/", {}))->revision;
    if (round % 3 == 2) {
      compacted = newest - static_cast<int64_t>(rng() % 20);
      REQUIRE(storagetest::Run(model->Compact(compacted)));
      REQUIRE(storagetest::Run((*sqlite)->Compact(compacted)));
    }
    for (int64_t at = std::max<int64_t>(compacted, 1); at <= newest; ++at) {
      for (const auto& [start, end] :
           std::vector<std::pair<std::string, std::string>>{{"/a/", "/a0"},
                                                            {"/", std::string(1, '\0')},
                                                            {"/a/2", ""},
                                                            {"/c", ""},
                                                            {"/a/3", "/b/2"}}) {
        for (int64_t limit : {0, 1, 2}) {
          RangeOptions r;
          r.end = end;
          r.revision = at;
          r.limit = limit;
          auto want = storagetest::Run(model->Range(start, r));
          auto got = storagetest::Run((*sqlite)->Range(start, r));
          REQUIRE(want);
          REQUIRE(got);
          INFO("round " << round << " at " << at << " range [" << start << ", " << end << ") limit "
                        << limit);
          REQUIRE(Describe(*got) == Describe(*want));
        }
      }
    }
  }
  (*sqlite)->Close();
  std::filesystem::remove_all(dir);
}
