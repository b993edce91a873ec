#include "test/unit/storage/harness.h"

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>

#include "pkg/genericserver/storage/cacher/cacher.h"
#include "pkg/genericserver/storage/memory/memory_kv.h"
#include "pkg/genericserver/storage/sqlite/sqlite_kv.h"
#include "pkg/genericserver/storage/store.h"
#include "pkg/genericserver/storage/transforming_kv.h"
#include "test/unit/storage/etcd_fixture.h"

namespace storagetest {

bool RunThreads(boost::asio::io_context& io, int threads, std::chrono::milliseconds limit) {
  std::mutex mu;
  std::condition_variable cv;
  int running = threads;
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) {
    pool.emplace_back([&] {
      io.run();
      std::lock_guard lock(mu);
      --running;
      cv.notify_all();
    });
  }
  bool finished;
  {
    std::unique_lock lock(mu);
    finished = cv.wait_for(lock, limit, [&] { return running == 0; });
  }
  if (!finished) io.stop();
  for (auto& t : pool) t.join();
  return finished;
}

std::string MakeTempDir(const std::string& tag) {
  std::string tmpl = "/tmp/kas-" + tag + "-XXXXXX";
  return mkdtemp(tmpl.data());
}

namespace {
// Memory behind the transforming KV, configmaps sealed with AES-GCM: the whole suite
// through encryption at rest.
std::shared_ptr<storage::Interface> EncryptedMemoryStore() {
  auto kv = std::make_shared<storage::TransformingKV>(storage::MemoryKV::New(), "/registry");
  kv->SetTransformer("/configmaps/",
                     storage::value::NewPrefixTransformers(
                         {{"k8s:enc:aesgcm:v1:k:",
                           storage::value::NewAESGCMTransformer(std::string(32, 'k')), ""}},
                         "no matching prefix found"));
  return std::make_shared<storage::Store>(kv, "/registry");
}

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
// The loop the suite's watch caches run on, for the whole test run.
boost::asio::io_context& CacherLoop() {
  static auto* loop = [] {
    auto* io = new boost::asio::io_context();
    auto* work = new boost::asio::executor_work_guard<boost::asio::io_context::executor_type>(
        io->get_executor());
    (void)work;  // never released: the loop lives as long as the process
    std::thread([io] { io->run(); }).detach();
    return io;
  }();
  return *loop;
}

// The watch cache (over "/configmaps/", the suite's prefix) in front of a backend.
std::function<std::shared_ptr<storage::Interface>()> Cached(
    std::function<std::shared_ptr<storage::Interface>()> make) {
  return [make] {
    auto backend = make();
    storage::CacherOptions options;
    options.resource_prefix = "/configmaps/";
    options.freshness_timeout = std::chrono::milliseconds(300);
    auto* cacher = new storage::Cacher(backend, options, CacherLoop());
    cacher->Start();
    for (int i = 0; i < 1000 && !cacher->Ready(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return std::shared_ptr<storage::Interface>(cacher, [backend](storage::Cacher* c) mutable {
      c->Stop();
      delete c;
      backend.reset();
    });
  };
}
}  // namespace

bool IsCached(const std::string& backend) { return backend.starts_with("cacher-"); }

const std::vector<Backend>& AllBackends() {
  static const std::vector<Backend> backends = {
      {"memory",
       [] { return std::make_shared<storage::Store>(storage::MemoryKV::New(), "/registry"); }},
      {"sqlite", SqliteStore},
      {"etcd3", EtcdStore},  // one etcd per run (etcd_fixture.h), a prefix per store
      {"cacher-memory", Cached([] {
         return std::make_shared<storage::Store>(storage::MemoryKV::New(), "/registry");
       })},
      {"cacher-sqlite", Cached(SqliteStore)},
      {"encrypted-memory", EncryptedMemoryStore},
      {"cacher-encrypted-memory", Cached(EncryptedMemoryStore)},
      {"cacher-etcd3", Cached(EtcdStore)},
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
