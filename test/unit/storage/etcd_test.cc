// etcd-specific cases: failover, size limits, error mapping, health, and watches that
// survive a broken connection. The shared suite (suite_test.cc) covers the semantics.
#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <thread>

#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>

#include "pkg/genericserver/storage/etcd3/etcd_kv.h"
#include "pkg/genericserver/storage/store.h"
#include "pkg/util/base64.h"
#include "test/unit/storage/etcd_fixture.h"
#include "test/unit/storage/harness.h"

using namespace storagetest;
using storage::ErrorCode;
using storage::KVEvent;

namespace {

// A TCP proxy to one port of 127.0.0.1 whose connections the test can cut.
class Proxy {
 public:
  explicit Proxy(int target_port) : target_port_(target_port) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr = Loopback(0);
    socklen_t len = sizeof addr;
    REQUIRE(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(listen_fd_, 64) == 0);
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { AcceptLoop(); });
  }

  ~Proxy() {
    stop_ = true;
    acceptor_.join();
    Cut();
    std::vector<std::thread> pumps;
    {
      std::lock_guard lock(mu_);
      pumps.swap(pumps_);
    }
    for (auto& t : pumps) t.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Breaks every connection open now.
  void Cut() {
    std::lock_guard lock(mu_);
    for (int fd : fds_) ::shutdown(fd, SHUT_RDWR);
  }

  // Stops listening: new connections are refused.
  void Refuse() {
    refuse_ = true;
    while (listen_fd_ >= 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

  int connections() const { return accepted_.load(); }

 private:
  static sockaddr_in Loopback(int port) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port);
    return addr;
  }

  void AcceptLoop() {
    while (!stop_) {
      if (refuse_) {
        ::close(listen_fd_);
        listen_fd_ = -1;
        return;
      }
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      int client = ::accept(listen_fd_, nullptr, nullptr);
      if (client < 0) continue;
      int server = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in target = Loopback(target_port_);
      if (::connect(server, reinterpret_cast<sockaddr*>(&target), sizeof target) != 0) {
        ::close(client);
        ::close(server);
        continue;
      }
      ++accepted_;
      std::lock_guard lock(mu_);
      fds_.push_back(client);
      fds_.push_back(server);
      pumps_.emplace_back([this, client, server] { Pump(client, server); });
    }
    ::close(listen_fd_);
    listen_fd_ = -1;
  }

  void Pump(int a, int b) {
    char buf[65536];
    for (;;) {
      pollfd p[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
      if (::poll(p, 2, 100) < 0) break;
      if (stop_) break;
      bool done = false;
      for (int i = 0; i < 2 && !done; ++i) {
        if (!p[i].revents) continue;
        const ssize_t n = ::read(p[i].fd, buf, sizeof buf);
        if (n <= 0) {
          done = true;
          break;
        }
        const int to = p[i].fd == a ? b : a;
        for (ssize_t off = 0; off < n && !done;) {
          const ssize_t w = ::write(to, buf + off, n - off);
          if (w <= 0) done = true;
          off += w;
        }
      }
      if (done) break;
    }
    std::lock_guard lock(mu_);
    ::shutdown(a, SHUT_RDWR);
    ::shutdown(b, SHUT_RDWR);
    std::erase(fds_, a);
    std::erase(fds_, b);
    ::close(a);
    ::close(b);
  }

  const int target_port_;
  std::atomic<int> listen_fd_{-1};
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<bool> refuse_{false};
  std::atomic<int> accepted_{0};
  std::mutex mu_;
  std::vector<int> fds_;
  std::vector<std::thread> pumps_;
  std::thread acceptor_;
};

int PortOf(const std::string& url) { return std::stoi(url.substr(url.rfind(':') + 1)); }

std::string DeadEndpoint() { return "http://127.0.0.1:" + std::to_string(FreePort()); }

// Up to n events (progress skipped unless keep_progress), or fewer once the watch ends
// or timeout passed; an error ends the list and is returned in error.
std::vector<KVEvent> CollectKV(storage::KVWatch& w, size_t n,
                               std::optional<storage::StorageError>* error = nullptr,
                               bool keep_progress = false,
                               std::chrono::seconds timeout = std::chrono::seconds(15)) {
  boost::asio::io_context io;
  boost::asio::steady_timer timer(io, timeout);
  timer.async_wait([&](boost::system::error_code ec) {
    if (!ec) w.Stop();
  });
  std::vector<KVEvent> out;
  auto collect = [&]() -> Awaitable<void> {
    while (out.size() < n) {
      auto next = co_await w.Next();
      if (!next) break;
      if (!*next) {
        if (error) *error = next->error();
        break;
      }
      if ((*next)->type == KVEvent::Type::kProgress && !keep_progress) continue;
      out.push_back(std::move(**next));
    }
    timer.cancel();
  };
  boost::asio::co_spawn(io, collect(), boost::asio::detached);
  io.run();
  return out;
}

int64_t MustPut(storage::KV& kv, const std::string& key, const std::string& value) {
  storage::RangeOptions one;
  auto got = Run(kv.Range(key, one));
  REQUIRE(got);
  auto r = got->kvs.empty() ? Run(kv.Create(key, value))
                            : Run(kv.Update(key, value, got->kvs.front().mod_revision));
  REQUIRE(r);
  REQUIRE(r->succeeded);
  return r->revision;
}

}  // namespace

TEST_CASE("etcd: a dead endpoint first fails over to the live one") {
  storage::EtcdOptions options;
  options.endpoints = {DeadEndpoint(), EtcdEndpoint(), DeadEndpoint()};
  auto kv = OpenEtcdKV(options);
  storage::Store store(kv, UniqueEtcdPrefix());
  for (int i = 0; i < 3; ++i) {  // later requests start at the endpoint that answered
    auto created = Run(store.Create("/configmaps/ns/a" + std::to_string(i), ConfigMap("a", "1")));
    REQUIRE(created);
  }
  auto list = Run(store.GetList("/configmaps/ns/", {}));
  REQUIRE(list);
  CHECK(list->items.size() == 3);
  storage::WatchOptions from_now;
  from_now.resource_version = std::to_string(list->revision);
  auto w = Run(store.Watch("/configmaps/ns/", from_now));
  REQUIRE(w);
  CHECK(kv->Healthy());
}

TEST_CASE("etcd: Open with only dead endpoints fails with a clear message") {
  storage::EtcdOptions options;
  const std::string a = DeadEndpoint(), b = DeadEndpoint();
  options.endpoints = {a, b};
  options.request_timeout = std::chrono::seconds(2);
  auto kv = storage::EtcdKV::Open(options);
  REQUIRE_FALSE(kv);
  INFO(kv.error());
  CHECK(kv.error().find("/v3/maintenance/status") != std::string::npos);
  CHECK(kv.error().find(a) != std::string::npos);
  CHECK(kv.error().find(b) != std::string::npos);
  CHECK(kv.error().find("refused") != std::string::npos);

  options.endpoints = {"127.0.0.1:2379"};
  auto bad = storage::EtcdKV::Open(options);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().find("http://host:port") != std::string::npos);
  options.endpoints = {};
  CHECK_FALSE(storage::EtcdKV::Open(options));
}

TEST_CASE("etcd: values over the size limit are kTooLarge") {
  auto kv = OpenEtcdKV();
  const std::string key = UniqueEtcdPrefix() + "/big";
  // Over the KV limit: refused before anything is sent.
  auto over = Run(kv->Create(key, std::string(storage::KV::kMaxValueBytes + 1, 'x')));
  REQUIRE_FALSE(over);
  CHECK(over.error().code == ErrorCode::kTooLarge);
  // At the limit, but over etcd's request limit once the key and framing are added.
  auto at = Run(kv->Create(key, std::string(storage::KV::kMaxValueBytes, 'x')));
  REQUIRE_FALSE(at);
  CHECK(at.error().code == ErrorCode::kTooLarge);
  auto small = Run(kv->Create(key, std::string(1024 * 1024, 'x')));
  REQUIRE(small);
  CHECK(small->succeeded);
  auto update =
      Run(kv->Update(key, std::string(storage::KV::kMaxValueBytes + 1, 'x'), small->revision));
  REQUIRE_FALSE(update);
  CHECK(update.error().code == ErrorCode::kTooLarge);
  CHECK(kv->Healthy());
}

TEST_CASE("etcd: revisions out of range, compaction and stats") {
  auto kv = OpenEtcdKV();
  const std::string prefix = UniqueEtcdPrefix() + "/";
  const int64_t first = MustPut(*kv, prefix + "a", "1");
  const int64_t second = MustPut(*kv, prefix + "a", "2");

  storage::RangeOptions future;
  future.revision = second + 1000;
  auto f = Run(kv->Range(prefix + "a", future));
  REQUIRE_FALSE(f);
  CHECK(f.error().code == ErrorCode::kTooLargeResourceVersion);
  CHECK(f.error().revision >= second);

  storage::RangeOptions past;
  past.revision = first;
  auto p = Run(kv->Range(prefix + "a", past));
  REQUIRE(p);
  REQUIRE(p->kvs.size() == 1);
  CHECK(*p->kvs.front().value == "1");

  REQUIRE(Run(kv->Compact(second)));
  REQUIRE(Run(kv->Compact(second)));  // again: nothing to do
  auto gone = Run(kv->Range(prefix + "a", past));
  REQUIRE_FALSE(gone);
  CHECK(gone.error().code == ErrorCode::kTooOldResourceVersion);
  CHECK(gone.error().revision >= second);
  auto ahead = Run(kv->Compact(second + 1000));
  REQUIRE_FALSE(ahead);
  CHECK(ahead.error().code == ErrorCode::kTooLargeResourceVersion);

  auto stats = Run(kv->Stats());
  REQUIRE(stats);
  CHECK(stats->keys >= 1);
  CHECK(stats->revision >= second);
  CHECK(stats->file_bytes > 0);
  CHECK(stats->compact_revision >= second);
}

TEST_CASE("etcd: a watch delivers progress notifications") {
  auto kv = OpenEtcdKV();
  const std::string prefix = UniqueEtcdPrefix() + "/";
  const int64_t rev = MustPut(*kv, prefix + "a", "1");
  storage::KVWatchOptions options;
  options.end = storage::PrefixEnd(prefix);
  options.start_revision = rev + 1;
  options.progress_notify = true;
  auto w = Run(kv->Watch(prefix, options));
  REQUIRE(w);
  auto events = CollectKV(**w, 1, nullptr, true);  // the fixture's etcd sends one a second
  REQUIRE(events.size() == 1);
  CHECK(events[0].type == KVEvent::Type::kProgress);
  CHECK(events[0].revision >= rev);
}

TEST_CASE("etcd: a watch whose connection is cut resumes without loss or duplicates") {
  Proxy proxy(PortOf(EtcdEndpoint()));
  storage::EtcdOptions options;
  options.endpoints = {proxy.url(), EtcdEndpoint()};
  auto kv = OpenEtcdKV(options);  // watches through the proxy first
  auto writer = OpenEtcdKV();     // writes straight to etcd
  const std::string prefix = UniqueEtcdPrefix() + "/";
  const std::string key = prefix + "counter";
  const int64_t start = MustPut(*writer, key, "0");

  storage::KVWatchOptions watch_options;
  watch_options.end = storage::PrefixEnd(prefix);
  watch_options.start_revision = start + 1;
  auto w = Run(kv->Watch(prefix, watch_options));
  REQUIRE(w);
  std::vector<int64_t> revisions;
  std::vector<std::string> values;
  auto take = [&](size_t n) {
    auto events = CollectKV(**w, n);
    REQUIRE(events.size() == n);
    for (const KVEvent& e : events) {
      CHECK(e.type == KVEvent::Type::kPut);
      revisions.push_back(e.revision);
      values.push_back(*e.kv.value);
    }
  };

  for (int i = 1; i <= 5; ++i) MustPut(*writer, key, std::to_string(i));
  take(5);
  SECTION("cut, and the endpoint still answers") {
    proxy.Cut();
    for (int i = 6; i <= 10; ++i) MustPut(*writer, key, std::to_string(i));
    take(5);
    proxy.Cut();
    for (int i = 11; i <= 15; ++i) MustPut(*writer, key, std::to_string(i));
    take(5);
  }
  SECTION("cut, and the endpoint is gone: the next one takes over") {
    proxy.Refuse();
    proxy.Cut();
    for (int i = 6; i <= 15; ++i) MustPut(*writer, key, std::to_string(i));
    take(10);
    // Requests go to the live endpoint too.
    storage::RangeOptions one;
    REQUIRE(Run(kv->Range(key, one)));
    CHECK(kv->Healthy());
  }
  REQUIRE(values.size() == 15);
  for (size_t i = 0; i < values.size(); ++i) {
    CHECK(values[i] == std::to_string(i + 1));
    if (i > 0) CHECK(revisions[i] == revisions[i - 1] + 1);
  }
  (*w)->Stop();
  CHECK(CollectKV(**w, 1).empty());
}

TEST_CASE("etcd: a lost endpoint makes requests unreachable and the backend unhealthy") {
  Proxy proxy(PortOf(EtcdEndpoint()));
  storage::EtcdOptions options;
  options.endpoints = {proxy.url()};
  options.request_timeout = std::chrono::seconds(2);
  auto kv = OpenEtcdKV(options);
  const std::string prefix = UniqueEtcdPrefix() + "/";
  const int64_t rev = MustPut(*kv, prefix + "a", "1");
  CHECK(kv->Healthy());
  storage::KVWatchOptions watch_options;
  watch_options.end = storage::PrefixEnd(prefix);
  watch_options.start_revision = rev + 1;
  auto w = Run(kv->Watch(prefix, watch_options));
  REQUIRE(w);

  proxy.Refuse();
  proxy.Cut();
  storage::RangeOptions one;
  auto r = Run(kv->Range(prefix + "a", one));
  REQUIRE_FALSE(r);
  CHECK(r.error().code == ErrorCode::kUnreachable);
  auto health = kv->Healthy();
  REQUIRE_FALSE(health);
  CHECK(health.error().code == ErrorCode::kUnreachable);
  auto txn = Run(kv->Create(prefix + "b", "1"));
  REQUIRE_FALSE(txn);
  CHECK(txn.error().code == ErrorCode::kUnreachable);
  // The watch keeps trying for the request timeout, then ends with the error.
  std::optional<storage::StorageError> error;
  CHECK(CollectKV(**w, 1, &error).empty());
  REQUIRE(error);
  CHECK(error->code == ErrorCode::kUnreachable);
}

TEST_CASE("etcd: a watch from a compacted revision reports the compaction") {
  auto kv = OpenEtcdKV();
  const std::string prefix = UniqueEtcdPrefix() + "/";
  const int64_t first = MustPut(*kv, prefix + "a", "1");
  MustPut(*kv, prefix + "a", "2");
  const int64_t third = MustPut(*kv, prefix + "a", "3");
  REQUIRE(Run(kv->Compact(third)));
  storage::KVWatchOptions options;
  options.end = storage::PrefixEnd(prefix);
  options.start_revision = first;
  auto w = Run(kv->Watch(prefix, options));
  REQUIRE(w);
  std::optional<storage::StorageError> error;
  CHECK(CollectKV(**w, 1, &error).empty());
  REQUIRE(error);
  CHECK(error->code == ErrorCode::kTooOldResourceVersion);
  CHECK(error->revision == third);
}

TEST_CASE("etcd: https with a client certificate") {
  storage::EtcdOptions options;
  options.endpoints = {EtcdTlsEndpoint()};
  options.tls = EtcdTlsFiles();
  auto kv = OpenEtcdKV(options);
  const std::string prefix = UniqueEtcdPrefix() + "/";
  const int64_t rev = MustPut(*kv, prefix + "a", "1");
  storage::KVWatchOptions watch_options;
  watch_options.end = storage::PrefixEnd(prefix);
  watch_options.start_revision = rev;
  auto w = Run(kv->Watch(prefix, watch_options));
  REQUIRE(w);
  MustPut(*kv, prefix + "a", "2");
  auto events = CollectKV(**w, 2);
  REQUIRE(events.size() == 2);
  CHECK(*events[1].kv.value == "2");
  REQUIRE(events[1].prev);
  CHECK(*events[1].prev->value == "1");

  SECTION("without a client certificate etcd refuses") {
    options.tls.cert_file.clear();
    options.tls.key_file.clear();
    options.request_timeout = std::chrono::seconds(2);
    auto refused = storage::EtcdKV::Open(options);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().find(EtcdTlsEndpoint()) != std::string::npos);
  }
  SECTION("a server certificate from another CA is refused") {
    options.tls.ca_file = options.tls.cert_file;  // a certificate, but not etcd's CA
    options.request_timeout = std::chrono::seconds(2);
    auto untrusted = storage::EtcdKV::Open(options);
    REQUIRE_FALSE(untrusted);
    CHECK(untrusted.error().find("certificate verify failed") != std::string::npos);
  }
  SECTION("unreadable TLS files fail at Open") {
    options.tls.ca_file = "/nonexistent/ca.crt";
    auto missing = storage::EtcdKV::Open(options);
    REQUIRE_FALSE(missing);
    CHECK(missing.error().find("TLS") != std::string::npos);
  }
}

TEST_CASE("etcd: compare-and-swap outcomes and a watch from now") {
  auto kv = OpenEtcdKV();
  const std::string prefix = UniqueEtcdPrefix() + "/";
  storage::KVWatchOptions options;
  options.end = storage::PrefixEnd(prefix);
  options.start_revision = 0;  // from now: ready once etcd registered it
  auto w = Run(kv->Watch(prefix, options));
  REQUIRE(w);

  auto created = Run(kv->Create(prefix + "a", "1"));
  REQUIRE(created);
  REQUIRE(created->succeeded);
  CHECK_FALSE(created->prev);
  auto again = Run(kv->Create(prefix + "a", "2"));
  REQUIRE(again);
  CHECK_FALSE(again->succeeded);
  REQUIRE(again->current);
  CHECK(*again->current->value == "1");
  CHECK(again->current->mod_revision == created->revision);
  CHECK(again->revision >= created->revision);
  auto stale = Run(kv->Update(prefix + "a", "2", created->revision - 1));
  REQUIRE(stale);
  CHECK_FALSE(stale->succeeded);
  REQUIRE(stale->current);
  auto updated = Run(kv->Update(prefix + "a", "", created->revision));  // an empty value
  REQUIRE(updated);
  REQUIRE(updated->succeeded);
  REQUIRE(updated->prev);
  CHECK(*updated->prev->value == "1");
  auto missing = Run(kv->Update(prefix + "none", "x", 0));
  REQUIRE(missing);
  CHECK_FALSE(missing->succeeded);
  CHECK_FALSE(missing->current);
  auto missing_delete = Run(kv->Delete(prefix + "none", 0));
  REQUIRE(missing_delete);
  CHECK_FALSE(missing_delete->succeeded);
  auto deleted = Run(kv->Delete(prefix + "a", updated->revision));
  REQUIRE(deleted);
  REQUIRE(deleted->succeeded);
  REQUIRE(deleted->prev);
  CHECK(*deleted->prev->value == "");

  auto events = CollectKV(**w, 3);
  REQUIRE(events.size() == 3);
  CHECK(events[0].type == KVEvent::Type::kPut);
  CHECK(events[0].revision == created->revision);
  CHECK(events[0].kv.create_revision == created->revision);
  CHECK(*events[0].kv.value == "1");
  CHECK_FALSE(events[0].prev);
  CHECK(events[1].type == KVEvent::Type::kPut);
  CHECK(*events[1].kv.value == "");
  REQUIRE(events[1].prev);
  CHECK(events[2].type == KVEvent::Type::kDelete);
  CHECK(events[2].kv.key == prefix + "a");
  CHECK(events[2].kv.mod_revision == deleted->revision);
  REQUIRE(events[2].prev);
  CHECK(events[2].prev->mod_revision == updated->revision);
}

TEST_CASE("etcd: closing the backend ends its watches") {
  auto kv = OpenEtcdKV();
  const std::string prefix = UniqueEtcdPrefix() + "/";
  const int64_t rev = MustPut(*kv, prefix + "a", "1");
  storage::KVWatchOptions options;
  options.end = storage::PrefixEnd(prefix);
  options.start_revision = rev + 1;
  auto w = Run(kv->Watch(prefix, options));
  REQUIRE(w);
  kv.reset();
  const auto start = std::chrono::steady_clock::now();
  std::optional<storage::StorageError> error;
  CHECK(CollectKV(**w, 1, &error, false, std::chrono::seconds(5)).empty());
  CHECK_FALSE(error);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));  // not the timeout
}

TEST_CASE("etcd: events of one transaction share a revision and all arrive") {
  auto kv = OpenEtcdKV();
  const std::string prefix = UniqueEtcdPrefix() + "/";
  const int64_t rev = MustPut(*kv, prefix + "a", "1");
  storage::KVWatchOptions options;
  options.end = storage::PrefixEnd(prefix);
  options.start_revision = rev + 1;
  auto w = Run(kv->Watch(prefix, options));
  REQUIRE(w);
  // Another client's transaction that puts two keys (the KV interface writes one).
  storage::etcd3::HttpClientOptions http;
  http.endpoints = {EtcdEndpoint()};
  auto client = storage::etcd3::HttpClient::New(http);
  REQUIRE(client);
  nlohmann::json put_x = {
      {"request_put",
       {{"key", util::Base64Encode(prefix + "x")}, {"value", util::Base64Encode("X")}}}};
  nlohmann::json put_y = {
      {"request_put",
       {{"key", util::Base64Encode(prefix + "y")}, {"value", util::Base64Encode("Y")}}}};
  nlohmann::json txn = {{"success", nlohmann::json::array({put_x, put_y})}};
  auto answer = Run((*client)->Post("/v3/kv/txn", txn.dump(), storage::etcd3::Retry::kUnsent));
  REQUIRE(answer);
  REQUIRE(answer->status == 200);
  MustPut(*kv, prefix + "a", "2");
  auto events = CollectKV(**w, 3);
  REQUIRE(events.size() == 3);
  CHECK(events[0].kv.key == prefix + "x");
  CHECK(events[1].kv.key == prefix + "y");
  CHECK(events[0].revision == events[1].revision);
  CHECK(events[2].revision == events[1].revision + 1);
}
