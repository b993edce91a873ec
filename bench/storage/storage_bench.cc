// Storage benchmarks, every backend in one run, with ratios between them:
//  1. write throughput and latency with 1, 16 and 64 concurrent writers: sqlite with
//     group commit, sqlite with one fsync per write, etcd3 on this machine, memory;
//  2. a list of 10,000 objects, from each backend and from the watch cache;
//  3. watch fan-out: 1,000 watchers on one prefix, delivery latency, through the watch
//     cache against 1,000 watchers on the store itself;
//  4. compaction of a long history while 16 writers write: the worst write latency;
//  5. reads of one key by 1 and 16 concurrent readers: sqlite's reads on its reader
//     threads against the same reads on the I/O threads (sqlite-inline, the old way).
// Usage: storage_bench [--quick] [--only=N] [--backends=a,b]   (results: bench/README.md)
#include <utility>  // before Asio

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_future.hpp>

#include "pkg/genericserver/storage/cacher/cacher.h"
#include "pkg/genericserver/storage/etcd3/etcd_kv.h"
#include "pkg/genericserver/storage/memory/memory_kv.h"
#include "pkg/genericserver/storage/sqlite/sqlite_kv.h"
#include "pkg/genericserver/storage/store.h"
#include "pkg/util/log.h"

namespace {

namespace fs = std::filesystem;
namespace net = boost::asio;
using Clock = std::chrono::steady_clock;
using storage::Interface;

bool quick = false;
int only = 0;                // run only part N
std::string only_backends;   // comma-separated names, empty: all
bool no_checkpoint = false;  // experiment: the sqlite checkpointer idle

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

// Runs a coroutine on the shared loop and waits for it.
template <class T>
T Await(net::io_context& io, Awaitable<T> a) {
  return net::co_spawn(net::make_strand(io), std::move(a), net::use_future).get();
}

std::string Value(const std::string& name) {
  // About the size of a small ConfigMap.
  return R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":")" + name +
         R"(","namespace":"bench","uid":"0b9f8f5e-6a8c-4c47-b1c4-2f0c6a1d3e55",)"
         R"("labels":{"app":"bench","tier":"storage"}},"data":{"key":")" +
         std::string(200, 'x') + R"("}})";
}

// A local etcd for the comparison, on free ports, its data beside the sqlite file's.
class LocalEtcd {
 public:
  explicit LocalEtcd(const std::string& dir) {
    const int client = FreePort(), peer = FreePort();
    endpoint_ = "http://127.0.0.1:" + std::to_string(client);
    const std::string peer_url = "http://127.0.0.1:" + std::to_string(peer);
    pid_ = fork();
    if (pid_ == 0) {
      freopen("/dev/null", "w", stderr);
      freopen("/dev/null", "w", stdout);
      execl("/usr/bin/etcd", "etcd", "--data-dir", (dir + "/etcd").c_str(), "--listen-client-urls",
            endpoint_.c_str(), "--advertise-client-urls", endpoint_.c_str(), "--listen-peer-urls",
            peer_url.c_str(), "--initial-advertise-peer-urls", peer_url.c_str(),
            "--initial-cluster", ("default=" + peer_url).c_str(), nullptr);
      _exit(127);
    }
  }
  ~LocalEtcd() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 50; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  std::shared_ptr<storage::EtcdKV> Open() {
    for (int i = 0; i < 200; ++i) {
      storage::EtcdOptions o;
      o.endpoints = {endpoint_};
      if (auto kv = storage::EtcdKV::Open(o)) return *kv;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return nullptr;
  }

 private:
  static int FreePort() {
    net::io_context io;
    net::ip::tcp::acceptor a(io, net::ip::tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
    return a.local_endpoint().port();
  }
  pid_t pid_ = -1;
  std::string endpoint_;
};

struct Backend {
  std::string name;
  std::shared_ptr<storage::KV> kv;
  std::shared_ptr<Interface> store;
};

struct WriteResult {
  double ops_per_second = 0;
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
};

// `writers` coroutines creating distinct keys for `duration`.
WriteResult Writes(net::io_context& io, Interface& store, const std::string& prefix, int writers,
                   Clock::duration duration) {
  std::mutex mu;
  std::vector<double> latencies;
  std::atomic<int> done{0};
  const auto end = Clock::now() + duration;
  const auto start = Clock::now();
  for (int w = 0; w < writers; ++w) {
    net::co_spawn(
        net::make_strand(io),
        [&, w]() -> Awaitable<void> {
          std::vector<double> mine;
          for (int n = 0; Clock::now() < end; ++n) {
            std::string key = prefix + std::to_string(w) + "-" + std::to_string(n);
            std::string value = Value(key);
            const auto t0 = Clock::now();
            auto r = co_await store.Create(key, std::move(value));
            if (r) mine.push_back(Seconds(Clock::now() - t0) * 1000);
          }
          std::lock_guard lock(mu);
          latencies.insert(latencies.end(), mine.begin(), mine.end());
          ++done;
        },
        net::detached);
  }
  while (done < writers) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  WriteResult r;
  r.ops_per_second = latencies.size() / Seconds(Clock::now() - start);
  r.p50_ms = Percentile(latencies, 0.50);
  r.p99_ms = Percentile(latencies, 0.99);
  r.max_ms = latencies.empty() ? 0 : *std::max_element(latencies.begin(), latencies.end());
  return r;
}

void Populate(net::io_context& io, Interface& store, const std::string& prefix, int count) {
  std::atomic<int> next{0}, done{0};
  const int writers = 64;
  for (int w = 0; w < writers; ++w) {
    net::co_spawn(
        net::make_strand(io),
        [&]() -> Awaitable<void> {
          for (int i; (i = next++) < count;) {
            std::string key = prefix + std::to_string(100000 + i);
            std::string value = Value(key);
            co_await store.Create(key, std::move(value));
          }
          ++done;
        },
        net::detached);
  }
  while (done < writers) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

// `readers` coroutines reading one key each (of prefix, as Populate made them) for
// `duration`; a consistent Get goes to the backend.
WriteResult Reads(net::io_context& io, Interface& store, const std::string& prefix, int readers,
                  Clock::duration duration) {
  std::mutex mu;
  std::vector<double> latencies;
  std::atomic<int> done{0}, failed{0};
  const auto end = Clock::now() + duration;
  const auto start = Clock::now();
  for (int r = 0; r < readers; ++r) {
    net::co_spawn(
        net::make_strand(io),
        [&, r]() -> Awaitable<void> {
          std::vector<double> mine;
          const std::string key = prefix + std::to_string(100000 + r);
          while (Clock::now() < end) {
            storage::GetOptions newest;
            const auto t0 = Clock::now();
            auto got = co_await store.Get(key, newest);
            if (got) {
              mine.push_back(Seconds(Clock::now() - t0) * 1000);
            } else {
              ++failed;
            }
          }
          std::lock_guard lock(mu);
          latencies.insert(latencies.end(), mine.begin(), mine.end());
          ++done;
        },
        net::detached);
  }
  while (done < readers) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (failed) std::printf("  (%d reads failed)\n", failed.load());
  WriteResult out;
  out.ops_per_second = latencies.size() / Seconds(Clock::now() - start);
  out.p50_ms = Percentile(latencies, 0.50);
  out.p99_ms = Percentile(latencies, 0.99);
  out.max_ms = latencies.empty() ? 0 : *std::max_element(latencies.begin(), latencies.end());
  return out;
}

double ListMillis(net::io_context& io, Interface& store, const std::string& prefix, size_t want) {
  std::vector<double> times;
  for (int i = 0; i < 5; ++i) {
    storage::ListOptions options;
    const auto t0 = Clock::now();
    auto r = Await(io, store.GetList(prefix, options));
    times.push_back(Seconds(Clock::now() - t0) * 1000);
    if (!r || r->items.size() != want) {
      std::printf("  (list returned %zu items, expected %zu)\n", r ? r->items.size() : 0, want);
    }
  }
  return Percentile(times, 0.5);
}

struct FanOut {
  double p50_ms = 0, p99_ms = 0;
  size_t delivered = 0;
};

// `watchers` watchers on prefix, `events` creates 5 ms apart; latency from the moment
// each write was issued to each delivery.
FanOut WatchFanOut(net::io_context& io, Interface& watched, Interface& writer,
                   const std::string& prefix, int watchers, int events) {
  std::mutex mu;
  std::map<std::string, Clock::time_point> issued;
  std::vector<double> latencies;
  std::vector<storage::WatcherPtr> handles;
  auto rev = Await(io, writer.CurrentRevision());
  for (int i = 0; i < watchers; ++i) {
    storage::WatchOptions o;
    o.resource_version = std::to_string(*rev);
    auto w = Await(io, watched.Watch(prefix, o));
    if (!w) {
      std::printf("  watch failed: %s\n", w.error().message.c_str());
      return {};
    }
    handles.push_back(std::move(*w));
  }
  std::atomic<int> finished{0};
  for (auto& h : handles) {
    net::co_spawn(
        net::make_strand(io),
        [&, w = h.get()]() -> Awaitable<void> {
          std::vector<double> mine;
          for (int n = 0; n < events; ++n) {
            auto e = co_await w->Next();
            if (!e) break;
            const auto now = Clock::now();
            std::string key = e->object->key;
            std::lock_guard lock(mu);
            mine.push_back(Seconds(now - issued[key]) * 1000);
          }
          std::lock_guard lock(mu);
          latencies.insert(latencies.end(), mine.begin(), mine.end());
          ++finished;
        },
        net::detached);
  }
  for (int i = 0; i < events; ++i) {
    std::string key = prefix + "e" + std::to_string(i);
    {
      std::lock_guard lock(mu);
      issued[key] = Clock::now();
    }
    Await(io, writer.Create(key, Value(key)));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (finished < watchers && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (auto& h : handles) h->Stop();
  while (finished < watchers) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::lock_guard lock(mu);
  return {Percentile(latencies, 0.5), Percentile(latencies, 0.99), latencies.size()};
}

std::shared_ptr<storage::SqliteKV> OpenSqlite(const std::string& path, size_t max_batch,
                                              size_t reader_threads = 4) {
  storage::SqliteOptions o;
  o.path = path;
  o.max_batch = max_batch;
  o.reader_threads = reader_threads;
  if (no_checkpoint) o.checkpoint_interval = std::chrono::hours(1);
  if (const char* ms = getenv("KAS_CHECKPOINT_MS"))
    o.checkpoint_interval = std::chrono::milliseconds(atoi(ms));
  auto kv = storage::SqliteKV::Open(o);
  if (!kv) {
    std::fprintf(stderr, "%s\n", kv.error().c_str());
    std::exit(1);
  }
  return *kv;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.starts_with("-v=")) util::log::SetVerbosity(std::stoi(a.substr(3)));
    if (a == "--quick") quick = true;
    if (a == "--no-checkpoint") no_checkpoint = true;
    if (a.starts_with("--only=")) only = std::stoi(a.substr(7));
    if (a.starts_with("--backends=")) only_backends = "," + a.substr(11) + ",";
  }
  const auto duration = std::chrono::milliseconds(quick ? 500 : 2000);
  char tmpl[] = "/var/tmp/kas-bench-XXXXXX";  // on disk, not tmpfs: fsync must cost
  const std::string dir = mkdtemp(tmpl);

  net::io_context io;
  auto work = net::make_work_guard(io);
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i) threads.emplace_back([&] { io.run(); });

  LocalEtcd etcd(dir);
  auto etcd_kv = etcd.Open();
  std::vector<Backend> backends;
  auto add = [&](std::string name, std::shared_ptr<storage::KV> kv) {
    if (!only_backends.empty() && only_backends.find("," + name + ",") == std::string::npos) return;
    auto store = std::make_shared<storage::Store>(kv, "/registry");
    backends.push_back({std::move(name), kv, store});
  };
  add("sqlite", OpenSqlite(dir + "/group.db", 1000));
  add("sqlite-1", OpenSqlite(dir + "/single.db", 1));
  // Reads on the caller's (I/O) thread: the reference of parts 2 and 5 only.
  if (only == 0 || only == 2 || only == 5)
    add("sqlite-inline", OpenSqlite(dir + "/inline.db", 1000, 0));
  if (etcd_kv) {
    add("etcd3", etcd_kv);
  } else {
    std::printf("etcd did not start: etcd3 left out\n");
  }
  add("memory", storage::MemoryKV::New());
  auto find = [&](const std::string& name) -> Backend* {
    for (auto& b : backends) {
      if (b.name == name) return &b;
    }
    return nullptr;
  };

  if (only == 0 || only == 1) {
    std::printf("## 1. Writes (Store::Create of ~450-byte objects, %.1f s each)\n\n",
                Seconds(duration));
    std::printf(
        "| backend | writers | writes/s | p50 ms | p99 ms | max ms | writes per commit |\n"
        "|---|---|---|---|---|---|---|\n");
    std::map<std::pair<std::string, int>, WriteResult> writes;
    for (int writers : {1, 16, 64}) {
      for (auto& b : backends) {
        if (b.name == "sqlite-inline") continue;  // writes as sqlite's
        auto before = Await(io, b.kv->Stats());
        auto r =
            Writes(io, *b.store, "/bench/w" + std::to_string(writers) + "/", writers, duration);
        auto after = Await(io, b.kv->Stats());
        writes[{b.name, writers}] = r;
        char per_commit[32] = "-";
        if (before && after && after->commits > before->commits) {
          std::snprintf(per_commit, sizeof per_commit, "%.1f",
                        static_cast<double>(after->committed_writes - before->committed_writes) /
                            static_cast<double>(after->commits - before->commits));
        }
        std::printf("| %s | %d | %.0f | %.2f | %.2f | %.2f | %s |\n", b.name.c_str(), writers,
                    r.ops_per_second, r.p50_ms, r.p99_ms, r.max_ms, per_commit);
        std::fflush(stdout);
      }
    }
    std::printf("\n| ratio (writes/s) | 1 writer | 16 writers | 64 writers |\n|---|---|---|---|\n");
    for (auto [num, den] : {std::pair{"sqlite", "sqlite-1"}, std::pair{"sqlite", "etcd3"}}) {
      if (!find(num) || !find(den)) continue;
      std::printf("| %s / %s |", num, den);
      for (int writers : {1, 16, 64}) {
        std::printf(" %.1fx |", writes[{num, writers}].ops_per_second /
                                    std::max(1.0, writes[{den, writers}].ops_per_second));
      }
      std::printf("\n");
    }
  }

  if (only == 0 || only == 2) {
    const int list_size = 10000;
    std::printf("\n## 2. List of %d objects (median of 5)\n\n| source | ms |\n|---|---|\n",
                list_size);
    std::map<std::string, double> lists;
    for (auto& b : backends) {
      Populate(io, *b.store, "/bench/list/", list_size);
      lists[b.name] = ListMillis(io, *b.store, "/bench/list/", list_size);
      std::printf("| %s | %.1f |\n", b.name.c_str(), lists[b.name]);
    }
    if (find("sqlite")) {
      storage::CacherOptions o;
      o.resource_prefix = "/bench/list/";
      auto cacher = std::make_shared<storage::Cacher>(find("sqlite")->store, o, io);
      cacher->Start();
      while (!cacher->Ready()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      lists["watch cache"] = ListMillis(io, *cacher, "/bench/list/", list_size);
      std::printf("| watch cache (over sqlite) | %.1f |\n", lists["watch cache"]);
      cacher->Stop();
    }
    if (lists.count("etcd3") && lists.count("sqlite")) {
      std::printf("\nsqlite / etcd3 list time: %.2fx; watch cache / etcd3: %.3fx\n",
                  lists["sqlite"] / lists["etcd3"], lists["watch cache"] / lists["etcd3"]);
    }
    if (lists.count("sqlite-inline") && lists.count("sqlite")) {
      std::printf("sqlite (reader threads) / sqlite-inline (I/O threads) list time: %.2fx\n",
                  lists["sqlite"] / lists["sqlite-inline"]);
    }
  }

  if ((only == 0 || only == 3) && find("sqlite")) {
    const int watchers = 1000, events = quick ? 50 : 200;
    std::printf("\n## 3. Watch fan-out: %d watchers, %d events 5 ms apart (sqlite)\n\n", watchers,
                events);
    std::printf("| watchers on | p50 ms | p99 ms | deliveries |\n|---|---|---|---|\n");
    {
      Backend& s = *find("sqlite");
      storage::CacherOptions o;
      o.resource_prefix = "/bench/fan/";
      auto cacher = std::make_shared<storage::Cacher>(s.store, o, io);
      cacher->Start();
      while (!cacher->Ready()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      auto cached = WatchFanOut(io, *cacher, *s.store, "/bench/fan/", watchers, events);
      std::printf("| watch cache | %.2f | %.2f | %zu |\n", cached.p50_ms, cached.p99_ms,
                  cached.delivered);
      auto direct = WatchFanOut(io, *s.store, *s.store, "/bench/fan2/", watchers, events);
      std::printf("| the store (reference) | %.2f | %.2f | %zu |\n", direct.p50_ms, direct.p99_ms,
                  direct.delivered);
      std::printf("\nwatch cache / store p99: %.2fx\n",
                  cached.p99_ms / std::max(0.001, direct.p99_ms));
      cacher->Stop();
    }
  }

  if ((only == 0 || only == 4) && find("sqlite")) {
    std::printf("\n## 4. Compaction under load (sqlite, 16 writers)\n\n");
    {
      Backend& s = *find("sqlite");
      // A long history: 200 keys updated until there are `history` revisions to drop.
      const int history = quick ? 20000 : 100000;
      Populate(io, *s.store, "/bench/hist/", 200);
      std::atomic<int> next{0}, done{0};
      for (int w = 0; w < 64; ++w) {
        net::co_spawn(
            net::make_strand(io),
            [&]() -> Awaitable<void> {
              for (int i; (i = next++) < history;) {
                std::string key = "/bench/hist/" + std::to_string(100000 + i % 200);
                storage::Preconditions none;
                storage::UpdateFunc bump = [i](const storage::ObjectPtr&)
                    -> Awaitable<std::expected<std::string, storage::StorageError>> {
                  co_return Value("v" + std::to_string(i));
                };
                co_await s.store->GuaranteedUpdate(key, none, false, bump, nullptr);
              }
              ++done;
            },
            net::detached);
      }
      while (done < 64) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      auto baseline = Writes(io, *s.store, "/bench/c0/", 16, std::chrono::seconds(2));
      auto current = Await(io, s.store->CurrentRevision());
      std::atomic<bool> compacted{false};
      double compact_seconds = 0;
      std::thread compactor([&] {
        const auto t0 = Clock::now();
        Await(io, s.store->Compact(*current));
        compact_seconds = Seconds(Clock::now() - t0);
        compacted = true;
      });
      auto during = Writes(io, *s.store, "/bench/c1/", 16, std::chrono::seconds(quick ? 2 : 4));
      compactor.join();
      std::printf("compacted %lld revisions in %.2f s%s\n\n", static_cast<long long>(*current),
                  compact_seconds, compacted ? "" : " (not finished)");
      std::printf("| writes | writes/s | p99 ms | max ms |\n|---|---|---|---|\n");
      std::printf("| without compaction | %.0f | %.2f | %.2f |\n", baseline.ops_per_second,
                  baseline.p99_ms, baseline.max_ms);
      std::printf("| during compaction | %.0f | %.2f | %.2f |\n", during.ops_per_second,
                  during.p99_ms, during.max_ms);
      std::printf("\nworst write delay added by compaction: %.2f ms (target: under 50 ms)\n",
                  std::max(0.0, during.max_ms - baseline.max_ms));
    }
  }

  if ((only == 0 || only == 5) && find("sqlite") && find("sqlite-inline")) {
    std::printf(
        "\n## 5. Reads of one key (Store::Get, consistent: each a read of the backend), %.1f s "
        "each\n\n| backend | readers | reads/s | p50 ms | p99 ms | max ms |\n"
        "|---|---|---|---|---|---|\n",
        Seconds(duration));
    std::map<std::pair<std::string, int>, WriteResult> reads;
    for (int readers : {1, 16}) {
      for (const char* name : {"sqlite", "sqlite-inline"}) {
        Backend& b = *find(name);
        Populate(io, *b.store, "/bench/read/", readers);
        auto r = Reads(io, *b.store, "/bench/read/", readers, duration);
        reads[{name, readers}] = r;
        std::printf("| %s | %d | %.0f | %.3f | %.3f | %.2f |\n", name, readers, r.ops_per_second,
                    r.p50_ms, r.p99_ms, r.max_ms);
        std::fflush(stdout);
      }
    }
    std::printf("\n| ratio sqlite / sqlite-inline | 1 reader | 16 readers |\n|---|---|---|\n");
    std::printf("| reads/s | %.2fx | %.2fx |\n",
                reads[{"sqlite", 1}].ops_per_second /
                    std::max(1.0, reads[{"sqlite-inline", 1}].ops_per_second),
                reads[{"sqlite", 16}].ops_per_second /
                    std::max(1.0, reads[{"sqlite-inline", 16}].ops_per_second));
  }

  for (auto& b : backends) {
    if (auto sqlite = std::dynamic_pointer_cast<storage::SqliteKV>(b.kv)) sqlite->Close();
  }
  backends.clear();
  etcd_kv.reset();
  work.reset();
  io.stop();
  for (auto& t : threads) t.join();
  fs::remove_all(dir);
}
