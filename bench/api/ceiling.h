#pragma once
// The reference of the API benchmarks: a bare Beast TLS server with the API server's
// certificate, answering each request with the bytes the real server answered (canned
// GET, LIST and CREATE replies, JSON or protobuf by Accept) and pushing one event line to
// every open watch on each POST. What is left of the real server's cost against it is the
// API machinery.
#include <utility>  // before Asio

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

namespace api_bench {

namespace fs = std::filesystem;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
template <typename T>
using Awaitable = net::awaitable<T>;
using Stream = beast::ssl_stream<beast::tcp_stream>;

struct Canned {
  unsigned status = 200;
  std::string content_type;
  std::string body;
};

struct CeilingReplies {
  Canned get, list, create;
  Canned get_protobuf, list_protobuf;  // for an Accept that prefers protobuf
  std::string event;  // one watch event line, sent to every open watch on each POST
};

class Ceiling {
 public:
  Ceiling(const fs::path& pki, CeilingReplies replies, tcp::acceptor& acceptor)
      : ctx_(ssl::context::tls_server), replies_(std::move(replies)), acceptor_(acceptor) {
    ctx_.use_certificate_chain_file((pki / "apiserver.crt").string());
    ctx_.use_private_key_file((pki / "apiserver.key").string(), ssl::context::pem);
  }

  void Run(int threads) {
    net::co_spawn(io_, Accept(), [](std::exception_ptr e) {
      if (!e) return;
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        std::fprintf(stderr, "ceiling: %s\n", x.what());
      }
    });
    std::vector<std::thread> pool;
    for (int i = 1; i < threads; ++i) pool.emplace_back([this] { io_.run(); });
    io_.run();
    for (auto& t : pool) t.join();
  }
  net::io_context& Io() { return io_; }

 private:
  Awaitable<void> Accept() {
    const tcp protocol = acceptor_.local_endpoint().protocol();
    tcp::acceptor acceptor(io_, protocol, acceptor_.release());
    for (;;) {
      tcp::socket socket =
          co_await acceptor.async_accept(net::make_strand(io_), net::use_awaitable);
      socket.set_option(tcp::no_delay(true));
      net::co_spawn(socket.get_executor(), Session(std::move(socket)), net::detached);
    }
  }

  Awaitable<void> Session(tcp::socket socket) {
    auto stream = std::make_shared<Stream>(std::move(socket), ctx_);
    beast::error_code ec;
    co_await stream->async_handshake(ssl::stream_base::server,
                                     net::redirect_error(net::use_awaitable, ec));
    if (ec) {
      std::fprintf(stderr, "ceiling: handshake: %s\n", ec.message().c_str());
      co_return;
    }
    beast::flat_buffer buffer;
    for (;;) {
      http::request<http::string_body> req;
      co_await http::async_read(*stream, buffer, req, net::redirect_error(net::use_awaitable, ec));
      if (ec) co_return;
      const std::string target(req.target());
      if (target.find("watch=true") != std::string::npos) {
        co_await Watch(stream);
        co_return;
      }
      const bool one = target.find("/configmaps/") != std::string::npos;
      const bool protobuf = req[http::field::accept].starts_with("application/vnd.kubernetes");
      const Canned& c = req.method() == http::verb::post ? replies_.create
                        : protobuf ? (one ? replies_.get_protobuf : replies_.list_protobuf)
                        : one      ? replies_.get
                                   : replies_.list;
      if (req.method() == http::verb::post) Broadcast();
      http::response<http::string_body> res{static_cast<http::status>(c.status), 11};
      res.set(http::field::content_type, c.content_type);
      res.body() = c.body;
      res.keep_alive(true);
      res.prepare_payload();
      co_await http::async_write(*stream, res, net::redirect_error(net::use_awaitable, ec));
      if (ec) co_return;
    }
  }

  // A chunked stream that gets the canned event whenever a POST arrives.
  Awaitable<void> Watch(std::shared_ptr<Stream> stream) {
    http::response<http::empty_body> res{http::status::ok, 11};
    res.set(http::field::content_type, "application/json");
    res.chunked(true);
    http::response_serializer<http::empty_body> sr{res};
    beast::error_code ec;
    co_await http::async_write_header(*stream, sr, net::redirect_error(net::use_awaitable, ec));
    if (ec) co_return;
    auto ex = co_await net::this_coro::executor;
    auto pending = std::make_shared<net::steady_timer>(ex, Clock::time_point::max());
    auto queued = std::make_shared<int>(0);
    {
      std::lock_guard lock(mu_);
      watchers_.push_back({ex, pending, queued});
    }
    for (;;) {
      co_await pending->async_wait(net::redirect_error(net::use_awaitable, ec));
      while (*queued > 0) {
        --*queued;
        co_await net::async_write(*stream, http::make_chunk(net::buffer(replies_.event)),
                                  net::redirect_error(net::use_awaitable, ec));
        if (ec) co_return;
      }
      pending->expires_at(Clock::time_point::max());
    }
  }

  void Broadcast() {
    std::lock_guard lock(mu_);
    for (auto& w : watchers_) {
      net::post(w.executor, [w] {
        ++*w.queued;
        w.pending->cancel();
      });
    }
  }

  struct Watcher {
    net::any_io_executor executor;
    std::shared_ptr<net::steady_timer> pending;
    std::shared_ptr<int> queued;
  };

  net::io_context io_;
  ssl::context ctx_;
  CeilingReplies replies_;
  tcp::acceptor& acceptor_;
  std::mutex mu_;
  std::vector<Watcher> watchers_;
};

}  // namespace api_bench
