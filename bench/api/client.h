#pragma once
// The API benchmarks' client side: TLS keep-alive connections to a server (the real one or
// the ceiling), single requests, timed hammering and watch fan-out, the server processes
// the benchmark starts and stops by pid, and the ours-against-reference comparison it
// prints. One client thread per measurement; nothing here is shared between threads.
#include <utility>  // before Asio

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/strand.hpp>
#include <boost/asio/use_future.hpp>

#include "bench/api/ceiling.h"

// ceiling.h brings Asio and Beast and the namespace aliases (fs, net, ssl, beast, http, tcp,
// Clock, Awaitable, Stream) this file uses.
namespace api_bench {

struct Options {
  std::string binary;
  std::string backend = "sqlite";
  double seconds = 5;
  int connections = 16;
  int watchers = 100;
  int watch_events = 200;
  int rounds = 3;    // ours then the ceiling, this many times; the median ratio is reported
  std::string only;  // get, list, protobuf, create, apply, rbac or watch: that part alone
  bool Runs(const char* part) const { return only.empty() || only == part; }
};

inline double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

inline double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

inline uint16_t FreePort() {
  net::io_context io;
  tcp::acceptor a(io, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
  return a.local_endpoint().port();
}

// ---- the client -------------------------------------------------------------------------

struct Target {
  std::string name;
  uint16_t port = 0;
};

// With the admin's client certificate, or none (the user is then the bearer token's).
inline ssl::context ClientContext(const fs::path& pki, bool admin = true) {
  ssl::context ctx(ssl::context::tls_client);
  ctx.load_verify_file((pki / "ca.crt").string());
  if (admin) {
    ctx.use_certificate_chain_file((pki / "admin.crt").string());
    ctx.use_private_key_file((pki / "admin.key").string(), ssl::context::pem);
  }
  ctx.set_verify_mode(ssl::verify_peer);
  return ctx;
}

inline Awaitable<std::unique_ptr<Stream>> Connect(ssl::context& ctx, uint16_t port) {
  auto ex = co_await net::this_coro::executor;
  auto stream = std::make_unique<Stream>(ex, ctx);
  const tcp::endpoint endpoint(net::ip::make_address("127.0.0.1"), port);
  co_await beast::get_lowest_layer(*stream).async_connect(endpoint, net::use_awaitable);
  beast::get_lowest_layer(*stream).socket().set_option(tcp::no_delay(true));
  co_await stream->async_handshake(ssl::stream_base::client, net::use_awaitable);
  co_return stream;
}

constexpr char kJSON[] = "application/json";
// What client-go's typed clients send for built-in kinds.
constexpr char kProtobuf[] = "application/vnd.kubernetes.protobuf, application/json";

// Sent as "Authorization: Bearer" when set (the RBAC part's token user).
inline std::string bearer_token;

inline http::request<http::string_body> Request(http::verb verb, const std::string& target,
                                                std::string body = "", const char* accept = kJSON,
                                                const char* content_type = kJSON) {
  http::request<http::string_body> req{verb, target, 11};
  req.set(http::field::host, "127.0.0.1");
  if (!bearer_token.empty()) req.set(http::field::authorization, "Bearer " + bearer_token);
  req.set(http::field::accept, accept);
  req.keep_alive(true);
  if (!body.empty()) {
    req.set(http::field::content_type, content_type);
    req.body() = std::move(body);
    req.prepare_payload();
  }
  return req;
}

// One request on a fresh connection, run to completion on a private loop.
inline http::response<http::string_body> Once(ssl::context& ctx, uint16_t port, http::verb verb,
                                              const std::string& target, std::string body = "",
                                              const char* accept = kJSON,
                                              const char* content_type = kJSON) {
  net::io_context io;
  auto f = net::co_spawn(
      io,
      [&]() -> Awaitable<http::response<http::string_body>> {
        auto stream = co_await Connect(ctx, port);
        auto req = Request(verb, target, body, accept, content_type);
        co_await http::async_write(*stream, req, net::use_awaitable);
        beast::flat_buffer buffer;
        http::response<http::string_body> res;
        co_await http::async_read(*stream, buffer, res, net::use_awaitable);
        co_return res;
      },
      net::use_future);
  io.run();
  return f.get();
}

// Requests 0..count-1 of make_body POSTed to `target` over a few keep-alive connections;
// how many were not 201.
inline int CreateMany(ssl::context& ctx, uint16_t port, const std::string& target, int count,
                      const std::function<std::string(int)>& make_body) {
  net::io_context io;
  int next = 0, failures = 0;
  for (int c = 0; c < 8; ++c) {
    net::co_spawn(
        io,
        [&]() -> Awaitable<void> {
          auto stream = co_await Connect(ctx, port);
          beast::flat_buffer buffer;
          while (next < count) {
            auto req = Request(http::verb::post, target, make_body(next++));
            co_await http::async_write(*stream, req, net::use_awaitable);
            http::response<http::string_body> res;
            co_await http::async_read(*stream, buffer, res, net::use_awaitable);
            if (res.result_int() != 201) ++failures;
          }
        },
        net::detached);
  }
  io.run();
  return failures;
}

struct Load {
  double per_second = 0;
  double p50 = 0, p99 = 0;
  size_t bytes = 0;  // of one response body
};

// `connections` keep-alive connections sending requests back to back for `seconds`; one
// loop thread, the same for every target. make_body gives the body of request number i.
inline Load Hammer(ssl::context& ctx, uint16_t port, http::verb verb, const std::string& target,
                   const Options& o, std::function<std::string(int)> make_body = nullptr,
                   unsigned expect = 200, const char* accept = kJSON,
                   const char* content_type = kJSON) {
  net::io_context io;
  std::vector<double> latencies;
  std::atomic<int> counter{0};
  std::atomic<bool> stop{false};
  size_t bytes = 0;
  int failures = 0;
  const auto start = Clock::now();
  for (int c = 0; c < o.connections; ++c) {
    net::co_spawn(
        io,
        [&]() -> Awaitable<void> {
          auto stream = co_await Connect(ctx, port);
          beast::flat_buffer buffer;
          while (!stop.load(std::memory_order_relaxed)) {
            const int i = counter++;
            auto req = Request(verb, target, make_body ? make_body(i) : "", accept, content_type);
            const auto sent = Clock::now();
            co_await http::async_write(*stream, req, net::use_awaitable);
            http::response<http::string_body> res;
            co_await http::async_read(*stream, buffer, res, net::use_awaitable);
            latencies.push_back(Ms(Clock::now() - sent));
            if (res.result_int() != expect) ++failures;
            bytes = res.body().size();
          }
        },
        net::detached);
  }
  net::steady_timer timer(
      io, std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds)));
  timer.async_wait([&](beast::error_code) { stop = true; });
  io.run();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  if (failures) std::fprintf(stderr, "  %d responses were not %u\n", failures, expect);
  return {latencies.size() / elapsed, Percentile(latencies, 0.5), Percentile(latencies, 0.99),
          bytes};
}

struct WatchResult {
  double p50 = 0, p99 = 0, max = 0;
  size_t delivered = 0, expected = 0;
};

// `watchers` watch streams of `watch_path`; then `events` POSTs of `create_path`, 5 ms apart,
// each body from make_body(i). Event i's latency at a watcher: from sending create i to
// reading the i-th newline-terminated event on that stream.
inline WatchResult FanOut(ssl::context& ctx, uint16_t port, const std::string& watch_path,
                          const std::string& create_path, const Options& o,
                          std::function<std::string(int)> make_body) {
  net::io_context io;
  std::vector<Clock::time_point> sent(o.watch_events);
  std::vector<double> latencies;
  std::vector<std::unique_ptr<Stream>> streams;
  int ready = 0;
  size_t delivered = 0;
  for (int w = 0; w < o.watchers; ++w) {
    net::co_spawn(
        io,
        [&]() -> Awaitable<void> {
          auto stream = co_await Connect(ctx, port);
          auto req = Request(http::verb::get, watch_path);
          co_await http::async_write(*stream, req, net::use_awaitable);
          beast::flat_buffer buffer;
          http::response_parser<http::empty_body> parser;
          parser.body_limit(boost::none);
          co_await http::async_read_header(*stream, buffer, parser, net::use_awaitable);
          ++ready;
          int seen = 0;
          auto on_chunk = [&](std::uint64_t, std::string_view data, beast::error_code&) {
            const auto now = Clock::now();
            for (char ch : data) {
              if (ch != '\n') continue;
              if (seen < o.watch_events) latencies.push_back(Ms(now - sent[seen]));
              ++seen;
              ++delivered;
            }
            return data.size();
          };
          parser.on_chunk_body(on_chunk);
          streams.push_back(std::move(stream));
          Stream& s = *streams.back();
          beast::error_code ec;
          co_await http::async_read(s, buffer, parser, net::redirect_error(net::use_awaitable, ec));
        },
        net::detached);
  }
  net::co_spawn(
      io,
      [&]() -> Awaitable<void> {
        auto ex = co_await net::this_coro::executor;
        net::steady_timer timer(ex);
        while (ready < o.watchers) {
          timer.expires_after(std::chrono::milliseconds(10));
          co_await timer.async_wait(net::use_awaitable);
        }
        auto stream = co_await Connect(ctx, port);
        beast::flat_buffer buffer;
        for (int i = 0; i < o.watch_events; ++i) {
          auto req = Request(http::verb::post, create_path, make_body(i));
          sent[i] = Clock::now();
          co_await http::async_write(*stream, req, net::use_awaitable);
          http::response<http::string_body> res;
          co_await http::async_read(*stream, buffer, res, net::use_awaitable);
          timer.expires_after(std::chrono::milliseconds(5));
          co_await timer.async_wait(net::use_awaitable);
        }
        // Let the last events arrive, then close every stream.
        timer.expires_after(std::chrono::milliseconds(500));
        co_await timer.async_wait(net::use_awaitable);
        for (auto& s : streams) beast::get_lowest_layer(*s).close();
      },
      net::detached);
  io.run();
  return {Percentile(latencies, 0.5), Percentile(latencies, 0.99), Percentile(latencies, 1.0),
          delivered, static_cast<size_t>(o.watchers) * o.watch_events};
}

// ---- processes --------------------------------------------------------------------------

class Child {
 public:
  explicit Child(pid_t pid) : pid_(pid) {}
  ~Child() { Stop(); }
  void Stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_;
};

inline std::unique_ptr<Child> StartServer(const Options& o, const fs::path& dir, uint16_t port,
                                          std::vector<std::string> extra = {}) {
  const std::string log = (dir / "server.log").string();
  std::vector<std::string> args = {
      o.binary,    "--data-dir",    (dir / "data").string(), "--bind-address",
      "127.0.0.1", "--secure-port", std::to_string(port),    "--storage-backend=" + o.backend,
      "--v=0"};
  args.insert(args.end(), extra.begin(), extra.end());
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::FILE* f = std::freopen(log.c_str(), "w", stderr);
    (void)f;
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(o.binary.c_str(), argv.data());
    std::_Exit(127);
  }
  return std::make_unique<Child>(pid);
}

inline bool WaitReady(const fs::path& pki, uint16_t port) {
  for (int i = 0; i < 500; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!fs::exists(pki / "admin.key")) continue;
    try {
      ssl::context ctx = ClientContext(pki);
      if (Once(ctx, port, http::verb::get, "/readyz").result_int() == 200) return true;
    } catch (const std::exception&) {
    }
  }
  return false;
}

// Runs ours then the ceiling `rounds` times and prints the round with the median ratio,
// with the lowest and highest ratio seen (this machine's noise).
inline void Compare(const char* what, const Options& o, const std::function<Load()>& ours,
                    const std::function<Load()>& ceiling) {
  std::vector<std::pair<Load, Load>> runs;
  for (int r = 0; r < o.rounds; ++r) {
    const Load a = ours();
    runs.emplace_back(a, ceiling());
  }
  auto ratio = [](const std::pair<Load, Load>& r) {
    return r.first.per_second / r.second.per_second;
  };
  std::sort(runs.begin(), runs.end(),
            [&](const auto& a, const auto& b) { return ratio(a) < ratio(b); });
  const auto& [mine, ceil] = runs[runs.size() / 2];
  std::printf("%-20s %8.0f %9.0f %6.0f%% %4.0f-%3.0f%%  %6.2f %6.2f  %6.2f %6.2f  %7zu\n", what,
              mine.per_second, ceil.per_second, 100 * ratio(runs[runs.size() / 2]),
              100 * ratio(runs.front()), 100 * ratio(runs.back()), mine.p50, mine.p99, ceil.p50,
              ceil.p99, mine.bytes);
}

}  // namespace api_bench
