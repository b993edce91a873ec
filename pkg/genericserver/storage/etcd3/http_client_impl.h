#pragma once
// The insides of HttpClient, shared by http_client.cc (connections, requests, failover)
// and http_stream.cc (streaming responses). Include from those two files only: it pulls
// in Beast. Everything runs on the client's one I/O thread unless it says so.

#include <utility>  // before Asio, see awaitable.h

#include <atomic>
#include <chrono>
#include <expected>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "pkg/genericserver/storage/etcd3/http_client.h"

namespace storage::etcd3 {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

// One connection, plain or TLS. Closed only on the I/O thread.
struct Connection {
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
  beast::flat_buffer buffer;  // bytes read past the previous response

  beast::tcp_stream& Tcp() { return secure ? beast::get_lowest_layer(*secure) : *plain; }
  void Close();
  // An idle connection is usable when the server neither closed it nor sent anything.
  bool StillOpen();
};

struct Endpoint {
  std::string url;
  bool tls = false;
  std::string host;  // without IPv6 brackets
  std::string port;
  std::string host_header;
  std::vector<std::unique_ptr<Connection>> idle;
};

http::request<http::string_body> MakeRequest(const Endpoint& ep, const std::string& path,
                                             std::string body);

// The outcome of one request/response on one connection.
struct Exchange {
  beast::error_code ec;
  bool written = false;   // the whole request went out
  bool answered = false;  // some of a response came back
  int status = 0;
  bool keep_alive = false;
  std::string body;
};

class StreamImpl;

class HttpClient::Impl : public std::enable_shared_from_this<HttpClient::Impl> {
 public:
  explicit Impl(HttpClientOptions options) : options_(std::move(options)) {}

  std::expected<void, std::string> Init();
  void Start() {
    work_.emplace(io_.get_executor());
    thread_ = std::thread([this] { RunLoop(); });
  }
  void Stop();
  // Any thread: runs the request on the I/O thread and calls done there.
  void Submit(std::string path, std::string body, Retry retry,
              std::function<void(HttpResult)> done);
  void StartStream(std::shared_ptr<StreamImpl> stream);

  const HttpClientOptions& options() const { return options_; }
  net::io_context& io() { return io_; }

 private:
  friend class StreamImpl;
  struct StreamOutcome {
    // kFailed: no 2xx answer; kBroken: a 2xx stream broke; kStopped: Close() or shutdown;
    // kEnded: on_line said kStop; kFinal: a non-2xx, non-5xx answer.
    enum class Kind { kFailed, kBroken, kStopped, kEnded, kFinal } kind = Kind::kFailed;
    std::string message;    // kFailed, kBroken
    HttpResponse response;  // kFinal
    Clock::duration lasted{};
  };

  void RunLoop();
  void Shutdown();
  HttpError Closed() const { return {HttpError::Kind::kClosed, "the etcd client is closed"}; }
  std::unique_ptr<Connection> TakeIdle(Endpoint& ep);
  Awaitable<std::expected<std::unique_ptr<Connection>, std::string>> Connect(Endpoint& ep);
  Awaitable<Exchange> Send(Connection& c, const http::request<http::string_body>& req);
  Awaitable<HttpResult> Request(std::string path, std::string body, Retry retry);
  Awaitable<void> RunStream(std::shared_ptr<StreamImpl> s);
  Awaitable<StreamOutcome> StreamOnce(StreamImpl& s, size_t index);
  template <class AsyncStream>
  Awaitable<StreamOutcome> StreamOn(AsyncStream& stream, Connection& c, StreamImpl& s,
                                    size_t index);

  const HttpClientOptions options_;
  net::io_context io_{1};
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work_;
  std::thread thread_;
  std::optional<net::ssl::context> tls_;

  std::mutex submit_mu_;  // orders Submit/StartStream against Stop
  bool accepting_ = true;

  // I/O thread only.
  std::vector<Endpoint> endpoints_;
  size_t preferred_ = 0;  // the endpoint that answered last
  bool stopping_ = false;
  std::set<Connection*> busy_;
  std::set<std::shared_ptr<StreamImpl>> streams_;
};

class StreamImpl final : public HttpStream, public std::enable_shared_from_this<StreamImpl> {
 public:
  StreamImpl(std::weak_ptr<HttpClient::Impl> client, std::string path, StreamCallbacks callbacks)
      : client_(std::move(client)), path_(std::move(path)), callbacks_(std::move(callbacks)) {}

  void Close() override;
  bool closed() const { return closed_.load(); }

 private:
  friend class HttpClient::Impl;
  // I/O thread: interrupts whatever the stream's coroutine waits for.
  void Abort();

  std::weak_ptr<HttpClient::Impl> client_;
  const std::string path_;
  StreamCallbacks callbacks_;  // I/O thread; cleared when the stream ends
  std::atomic<bool> closed_{false};
  // Owned by the stream's coroutine frame, set while it waits on them (I/O thread).
  Connection* conn_ = nullptr;
  net::steady_timer* timer_ = nullptr;
};

}  // namespace storage::etcd3
