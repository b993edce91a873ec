#include "test/unit/storage/harness.h"

#include <filesystem>
#include <stdexcept>

#include "pkg/genericserver/storage/memory/memory_kv.h"
#include "pkg/genericserver/storage/sqlite/sqlite_kv.h"
#include "pkg/genericserver/storage/store.h"
#include "test/unit/storage/etcd_fixture.h"

namespace storagetest {

std::string MakeTempDir(const std::string& tag) {
  std::string tmpl = "/tmp/kas-" + tag + "-XXXXXX";
  return mkdtemp(tmpl.data());
}

namespace {
std::shared_ptr<storage::Interface> SqliteStore() {
  std::string dir = MakeTempDir("sqlite");
  storage::SqliteOptions options;
  options.path = dir + "/store.db";
  auto kv = storage::SqliteKV::Open(options);
  if (!kv) throw std::runtime_error(kv.error());
  auto* store = new storage::Store(*kv, "/registry");
  return std::shared_ptr<storage::Interface>(store, [dir, kv = *kv](storage::Store* s) mutable {
    delete s;
    kv->Close();
    kv.reset();
    std::filesystem::remove_all(dir);
  });
}
}  // namespace

const std::vector<Backend>& AllBackends() {
  static const std::vector<Backend> backends = {
      {"memory",
       [] { return std::make_shared<storage::Store>(storage::MemoryKV::New(), "/registry"); }},
      {"sqlite", SqliteStore},
      {"etcd3", EtcdStore},  // one etcd per run (etcd_fixture.h), a prefix per store
  };
  return backends;
}

const Backend& FindBackend(const std::string& name) {
  for (const Backend& b : AllBackends()) {
    if (b.name == name) return b;
  }
  throw std::runtime_error("no backend " + name);
}

std::vector<std::string> BackendNames() {
  std::vector<std::string> names;
  for (const Backend& b : AllBackends()) names.push_back(b.name);
  return names;
}

std::string ConfigMap(const std::string& name, const std::string& value, const std::string& uid,
                      const std::map<std::string, std::string>& labels) {
  nlohmann::ordered_json j;
  j["kind"] = "ConfigMap";
  j["apiVersion"] = "v1";
  j["metadata"]["name"] = name;
  j["metadata"]["uid"] = uid;
  if (!labels.empty()) j["metadata"]["labels"] = labels;
  j["data"]["value"] = value;
  return j.dump();
}

nlohmann::json Parse(const storage::ObjectPtr& o) { return nlohmann::json::parse(*o->json); }

std::string RV(const storage::ObjectPtr& o) {
  return Parse(o)["metadata"]["resourceVersion"].get<std::string>();
}

}  // namespace storagetest
