// The only file of the etcd backend that includes Beast: connections, failover and
// streaming. Everything below runs on the client's one I/O thread unless it says so.
#include "pkg/genericserver/storage/etcd3/http_client.h"

#include <utility>  // before Asio, see awaitable.h

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "pkg/genericserver/storage/completion.h"
#include "pkg/util/log.h"

namespace storage::etcd3 {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

constexpr size_t kMaxIdlePerEndpoint = 16;
constexpr size_t kMaxErrorBody = 64 * 1024;
constexpr auto kMinBackoff = std::chrono::milliseconds(100);
constexpr auto kMaxBackoff = std::chrono::seconds(1);

// One connection, plain or TLS. Closed only on the I/O thread.
struct Connection {
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
  beast::flat_buffer buffer;  // bytes read past the previous response

  beast::tcp_stream& Tcp() { return secure ? beast::get_lowest_layer(*secure) : *plain; }
  void Close() {
    beast::error_code ignored;
    Tcp().socket().shutdown(tcp::socket::shutdown_both, ignored);
    Tcp().close();
  }
  // An idle connection is usable when the server neither closed it nor sent anything.
  bool StillOpen() {
    if (!Tcp().socket().is_open()) return false;
    pollfd p{Tcp().socket().native_handle(), POLLIN | POLLRDHUP, 0};
    return ::poll(&p, 1, 0) == 0;
  }
};

struct Endpoint {
  std::string url;
  bool tls = false;
  std::string host;  // without IPv6 brackets
  std::string port;
  std::string host_header;
  std::vector<std::unique_ptr<Connection>> idle;
};

std::expected<Endpoint, std::string> ParseEndpoint(const std::string& url) {
  auto bad = [&](const std::string& why) {
    return std::unexpected("etcd endpoint \"" + url + "\": " + why);
  };
  Endpoint ep;
  ep.url = url;
  std::string_view rest = url;
  if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else if (rest.starts_with("https://")) {
    ep.tls = true;
    rest.remove_prefix(8);
  } else {
    return bad("want http://host:port or https://host:port");
  }
  while (rest.ends_with('/')) rest.remove_suffix(1);
  if (rest.find('/') != std::string_view::npos) return bad("a path is not supported");
  std::string_view port;
  if (rest.starts_with('[')) {
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) return bad("unclosed [");
    ep.host = std::string(rest.substr(1, close - 1));
    rest.remove_prefix(close + 1);
    if (!rest.empty() && !rest.starts_with(':')) return bad("junk after ]");
    if (!rest.empty()) port = rest.substr(1);
  } else if (const size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    ep.host = std::string(rest.substr(0, colon));
    port = rest.substr(colon + 1);
  } else {
    ep.host = std::string(rest);
  }
  if (ep.host.empty()) return bad("no host");
  ep.port = port.empty() ? "2379" : std::string(port);
  for (char c : ep.port) {
    if (c < '0' || c > '9') return bad("the port is not a number");
  }
  const bool v6 = ep.host.find(':') != std::string::npos;
  ep.host_header = (v6 ? "[" + ep.host + "]" : ep.host) + ":" + ep.port;
  return ep;
}

http::request<http::string_body> MakeRequest(const Endpoint& ep, const std::string& path,
                                             std::string body) {
  http::request<http::string_body> req(http::verb::post, path, 11);
  req.set(http::field::host, ep.host_header);
  req.set(http::field::content_type, "application/json");
  req.keep_alive(true);
  req.body() = std::move(body);
  req.prepare_payload();
  return req;
}

// The outcome of one request/response on one connection.
struct Exchange {
  beast::error_code ec;
  bool written = false;   // the whole request went out
  bool answered = false;  // some of a response came back
  int status = 0;
  bool keep_alive = false;
  std::string body;
};

template <class Stream>
Awaitable<Exchange> ExchangeOn(Stream& stream, Connection& c,
                               const http::request<http::string_body>& req,
                               Clock::time_point deadline) {
  Exchange r;
  c.Tcp().expires_at(deadline);
  co_await http::async_write(stream, req, net::redirect_error(net::use_awaitable, r.ec));
  if (r.ec) co_return r;
  r.written = true;
  http::response_parser<http::string_body> parser;
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  co_await http::async_read(stream, c.buffer, parser,
                            net::redirect_error(net::use_awaitable, r.ec));
  r.answered = parser.got_some();
  if (r.ec) co_return r;
  r.status = parser.get().result_int();
  r.keep_alive = parser.get().keep_alive();
  r.body = std::move(parser.get().body());
  co_return r;
}

}  // namespace

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

  void Close() override {
    if (closed_.exchange(true)) return;
    auto client = client_.lock();
    if (!client) return;
    net::post(client->io(), [self = shared_from_this()] { self->Abort(); });
  }
  bool closed() const { return closed_.load(); }

 private:
  friend class HttpClient::Impl;
  // I/O thread: interrupts whatever the stream's coroutine waits for.
  void Abort() {
    if (conn_) conn_->Close();
    if (timer_) timer_->cancel();
  }

  std::weak_ptr<HttpClient::Impl> client_;
  const std::string path_;
  StreamCallbacks callbacks_;  // I/O thread; cleared when the stream ends
  std::atomic<bool> closed_{false};
  // Owned by the stream's coroutine frame, set while it waits on them (I/O thread).
  Connection* conn_ = nullptr;
  net::steady_timer* timer_ = nullptr;
};

std::expected<void, std::string> HttpClient::Impl::Init() {
  if (options_.endpoints.empty()) return std::unexpected("no etcd endpoints given");
  bool any_tls = false;
  for (const std::string& url : options_.endpoints) {
    auto ep = ParseEndpoint(url);
    if (!ep) return std::unexpected(ep.error());
    any_tls = any_tls || ep->tls;
    endpoints_.push_back(std::move(*ep));
  }
  if (!any_tls) return {};
  try {
    tls_.emplace(net::ssl::context::tls_client);
    tls_->set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                      net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 |
                      net::ssl::context::no_tlsv1_1);
    const TlsConfig& t = options_.tls;
    if (t.ca_file.empty()) {
      tls_->set_default_verify_paths();
    } else {
      tls_->load_verify_file(t.ca_file);
    }
    if (t.cert_file.empty() != t.key_file.empty()) {
      return std::unexpected("etcd TLS: a client certificate needs both a cert and a key file");
    }
    if (!t.cert_file.empty()) {
      tls_->use_certificate_chain_file(t.cert_file);
      tls_->use_private_key_file(t.key_file, net::ssl::context::pem);
    }
  } catch (const boost::system::system_error& e) {
    return std::unexpected(std::string("etcd TLS configuration: ") + e.what());
  }
  return {};
}

void HttpClient::Impl::RunLoop() {
  for (;;) {
    try {
      io_.run();
      return;
    } catch (const std::exception& e) {
      KLOG_ERROR << "etcd client: " << e.what();
    }
  }
}

void HttpClient::Impl::Stop() {
  {
    std::lock_guard lock(submit_mu_);
    if (!accepting_) return;
    accepting_ = false;
    net::post(io_, [this] { Shutdown(); });
  }
  work_.reset();
  if (thread_.joinable()) thread_.join();
}

void HttpClient::Impl::Shutdown() {
  stopping_ = true;
  for (Connection* c : busy_) c->Close();
  for (Endpoint& ep : endpoints_) ep.idle.clear();
  for (const auto& s : streams_) s->Abort();
}

void HttpClient::Impl::Submit(std::string path, std::string body, Retry retry,
                              std::function<void(HttpResult)> done) {
  std::lock_guard lock(submit_mu_);
  if (!accepting_) {
    done(std::unexpected(Closed()));
    return;
  }
  net::co_spawn(io_, Request(std::move(path), std::move(body), retry),
                [done = std::move(done)](std::exception_ptr e, HttpResult r) {
                  if (e) {
                    try {
                      std::rethrow_exception(e);
                    } catch (const std::exception& ex) {
                      r = std::unexpected(HttpError{HttpError::Kind::kUncertain, ex.what()});
                    }
                  }
                  done(std::move(r));
                });
}

std::unique_ptr<Connection> HttpClient::Impl::TakeIdle(Endpoint& ep) {
  while (!ep.idle.empty()) {
    std::unique_ptr<Connection> c = std::move(ep.idle.back());
    ep.idle.pop_back();
    if (c->StillOpen()) return c;
  }
  return nullptr;
}

Awaitable<std::expected<std::unique_ptr<Connection>, std::string>> HttpClient::Impl::Connect(
    Endpoint& ep) {
  auto conn = std::make_unique<Connection>();
  if (ep.tls) {
    conn->secure.emplace(io_, *tls_);
  } else {
    conn->plain.emplace(io_);
  }
  beast::error_code ec;
  tcp::resolver resolver(io_);
  auto resolved = co_await resolver.async_resolve(ep.host, ep.port,
                                                  net::redirect_error(net::use_awaitable, ec));
  if (ec) co_return std::unexpected("resolving " + ep.host + ": " + ec.message());
  if (stopping_) co_return std::unexpected(Closed().message);
  busy_.insert(conn.get());
  conn->Tcp().expires_after(options_.dial_timeout);
  co_await conn->Tcp().async_connect(resolved, net::redirect_error(net::use_awaitable, ec));
  if (!ec) {
    auto& socket = conn->Tcp().socket();
    socket.set_option(tcp::no_delay(true), ec);
    // Finds a peer that vanished (a watch may be silent for long).
    socket.set_option(net::socket_base::keep_alive(true), ec);
    int idle = 30, interval = 10, count = 3;
    ::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    ::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
    ::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
    ec = {};
  }
  const char* phase = "connecting";
  if (!ec && ep.tls) {
    phase = "TLS handshake";
    auto& s = *conn->secure;
    beast::error_code not_ip;
    net::ip::make_address(ep.host, not_ip);
    if (not_ip) SSL_set_tlsext_host_name(s.native_handle(), ep.host.c_str());
    s.set_verify_mode(net::ssl::verify_peer);
    s.set_verify_callback(net::ssl::host_name_verification(ep.host));
    co_await s.async_handshake(net::ssl::stream_base::client,
                               net::redirect_error(net::use_awaitable, ec));
  }
  busy_.erase(conn.get());
  if (stopping_) co_return std::unexpected(Closed().message);
  if (ec == beast::error::timeout) co_return std::unexpected(std::string(phase) + ": timed out");
  if (ec) co_return std::unexpected(phase + (": " + ec.message()));
  co_return std::move(conn);
}

Awaitable<Exchange> HttpClient::Impl::Send(Connection& c,
                                           const http::request<http::string_body>& req) {
  const Clock::time_point deadline = Clock::now() + options_.request_timeout;
  busy_.insert(&c);
  Exchange r;
  if (c.secure) {
    r = co_await ExchangeOn(*c.secure, c, req, deadline);
  } else {
    r = co_await ExchangeOn(*c.plain, c, req, deadline);
  }
  busy_.erase(&c);
  co_return r;
}

Awaitable<HttpResult> HttpClient::Impl::Request(std::string path, std::string body, Retry retry) {
  auto self = shared_from_this();
  std::string failures;
  auto note = [&](const Endpoint& ep, const std::string& what) {
    failures += (failures.empty() ? "" : "; ") + ep.url + ": " + what;
  };
  const size_t n = endpoints_.size();
  const size_t first = preferred_;
  for (size_t k = 0; k < n && !stopping_; ++k) {
    const size_t index = (first + k) % n;
    Endpoint& ep = endpoints_[index];
    const auto req = MakeRequest(ep, path, body);
    // A kept-alive connection first; when it turns out closed before any answer came,
    // once more on a new one.
    for (int round = 0; round < 2 && !stopping_; ++round) {
      std::unique_ptr<Connection> conn = TakeIdle(ep);
      const bool reused = conn != nullptr;
      if (!conn) {
        auto fresh = co_await Connect(ep);
        if (!fresh) {
          note(ep, fresh.error());
          break;
        }
        conn = std::move(*fresh);
      }
      Exchange ex = co_await Send(*conn, req);
      if (stopping_) co_return std::unexpected(Closed());
      if (!ex.ec) {
        if (ex.keep_alive && ep.idle.size() < kMaxIdlePerEndpoint) {
          ep.idle.push_back(std::move(conn));
        }
        if (ex.status >= 500 && retry == Retry::kIdempotent) {
          note(ep, "HTTP " + std::to_string(ex.status) + " " + ex.body.substr(0, 200));
          break;
        }
        preferred_ = index;
        co_return HttpResponse{ex.status, std::move(ex.body), ep.url};
      }
      conn->Close();
      const std::string what = ex.ec == beast::error::timeout ? "timed out" : ex.ec.message();
      if (ex.written && retry == Retry::kUnsent) {
        co_return std::unexpected(
            HttpError{HttpError::Kind::kUncertain,
                      ep.url + ": " + what + " after the request was sent; it may have applied"});
      }
      if (reused && !ex.answered && round == 0) continue;
      note(ep, what);
      break;
    }
  }
  if (stopping_) co_return std::unexpected(Closed());
  co_return std::unexpected(
      HttpError{HttpError::Kind::kUnreachable, "no etcd endpoint answered (" + failures + ")"});
}

void HttpClient::Impl::StartStream(std::shared_ptr<StreamImpl> stream) {
  std::lock_guard lock(submit_mu_);
  if (!accepting_) {
    stream->callbacks_.on_end(std::unexpected(Closed()));
    return;
  }
  net::co_spawn(io_, RunStream(std::move(stream)), [](std::exception_ptr e) {
    if (!e) return;
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      KLOG_ERROR << "etcd stream: " << ex.what();
    }
  });
}

Awaitable<void> HttpClient::Impl::RunStream(std::shared_ptr<StreamImpl> s) {
  auto self = shared_from_this();
  streams_.insert(s);
  net::steady_timer timer(io_);
  s->timer_ = &timer;
  std::optional<HttpResult> end;
  std::string failures;
  Clock::time_point down_since = Clock::now();
  Clock::duration backoff = Clock::duration::zero();
  size_t next = preferred_;
  const size_t n = endpoints_.size();
  while (!s->closed() && !stopping_) {
    bool reconnect_now = false;
    for (size_t k = 0; k < n && !s->closed() && !stopping_; ++k) {
      const size_t index = (next + k) % n;
      StreamOutcome o = co_await StreamOnce(*s, index);
      if (o.kind == StreamOutcome::Kind::kStopped) break;
      if (o.kind == StreamOutcome::Kind::kEnded) {
        s->closed_ = true;
        break;
      }
      if (o.kind == StreamOutcome::Kind::kFinal) {
        end = std::move(o.response);
        break;
      }
      if (o.kind == StreamOutcome::Kind::kBroken) {
        // It worked for a while: start over on the next endpoint, at once if it lasted.
        KLOG_V(2) << "etcd stream " << s->path_ << " on " << endpoints_[index].url
                  << " broke: " << o.message;
        failures.clear();
        down_since = Clock::now();
        backoff = o.lasted > std::chrono::seconds(1)
                      ? Clock::duration::zero()
                      : std::clamp<Clock::duration>(backoff * 2, kMinBackoff, kMaxBackoff);
        next = index + 1;
        reconnect_now = true;
        break;
      }
      failures += (failures.empty() ? "" : "; ") + endpoints_[index].url + ": " + o.message;
    }
    if (end || s->closed() || stopping_) break;
    if (!reconnect_now) {
      if (Clock::now() - down_since > options_.stream_retry_for) {
        end = std::unexpected(HttpError{HttpError::Kind::kUnreachable,
                                        "no etcd endpoint answered (" + failures + ")"});
        break;
      }
      backoff = std::clamp<Clock::duration>(backoff * 2, kMinBackoff, kMaxBackoff);
    }
    if (backoff > Clock::duration::zero()) {
      timer.expires_after(backoff);
      beast::error_code ec;
      co_await timer.async_wait(net::redirect_error(net::use_awaitable, ec));
    }
  }
  s->timer_ = nullptr;
  if (stopping_ && !s->closed()) end = std::unexpected(Closed());
  if (end && !s->closed() && s->callbacks_.on_end) s->callbacks_.on_end(std::move(*end));
  s->callbacks_ = StreamCallbacks();  // drops what the callbacks hold
  streams_.erase(s);
}

Awaitable<HttpClient::Impl::StreamOutcome> HttpClient::Impl::StreamOnce(StreamImpl& s,
                                                                        size_t index) {
  Endpoint& ep = endpoints_[index];
  auto conn = co_await Connect(ep);
  if (!conn) co_return StreamOutcome{StreamOutcome::Kind::kFailed, conn.error(), {}, {}};
  if (s.closed() || stopping_) co_return StreamOutcome{StreamOutcome::Kind::kStopped, "", {}, {}};
  s.conn_ = conn->get();
  StreamOutcome o;
  if ((*conn)->secure) {
    o = co_await StreamOn(*(*conn)->secure, **conn, s, index);
  } else {
    o = co_await StreamOn(*(*conn)->plain, **conn, s, index);
  }
  s.conn_ = nullptr;
  (*conn)->Close();
  co_return o;
}

template <class AsyncStream>
Awaitable<HttpClient::Impl::StreamOutcome> HttpClient::Impl::StreamOn(AsyncStream& stream,
                                                                      Connection& c, StreamImpl& s,
                                                                      size_t index) {
  using Kind = StreamOutcome::Kind;
  const Endpoint& ep = endpoints_[index];
  const auto req = MakeRequest(ep, s.path_, s.callbacks_.body());
  beast::error_code ec;
  c.Tcp().expires_after(options_.request_timeout);
  co_await http::async_write(stream, req, net::redirect_error(net::use_awaitable, ec));
  if (ec) co_return StreamOutcome{Kind::kFailed, ec.message(), {}, {}};
  http::response_parser<http::buffer_body> parser;
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  co_await http::async_read_header(stream, c.buffer, parser,
                                   net::redirect_error(net::use_awaitable, ec));
  if (ec) co_return StreamOutcome{Kind::kFailed, ec.message(), {}, {}};
  const int status = parser.get().result_int();
  const bool ok = status / 100 == 2;
  const Clock::time_point opened = Clock::now();
  if (ok) {
    preferred_ = index;
    c.Tcp().expires_never();
  }
  std::vector<char> chunk(64 * 1024);
  std::string pending;  // a 2xx body up to its last newline; otherwise the whole body
  while (!parser.is_done() && !s.closed() && !stopping_) {
    parser.get().body().data = chunk.data();
    parser.get().body().size = chunk.size();
    co_await http::async_read_some(stream, c.buffer, parser,
                                   net::redirect_error(net::use_awaitable, ec));
    if (ec == http::error::need_buffer) ec = {};
    pending.append(chunk.data(), chunk.size() - parser.get().body().size);
    if (!ok) {
      if (ec || pending.size() > kMaxErrorBody) break;
      continue;
    }
    size_t start = 0;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view line(pending.data() + start, nl - start);
      if (line.ends_with('\r')) line.remove_suffix(1);
      if (line.empty()) continue;
      if (s.closed()) co_return StreamOutcome{Kind::kStopped, "", {}, {}};
      const StreamCallbacks::Next next = s.callbacks_.on_line(line);
      if (next == StreamCallbacks::Next::kStop) co_return StreamOutcome{Kind::kEnded, "", {}, {}};
      if (next == StreamCallbacks::Next::kReconnect) {
        co_return StreamOutcome{Kind::kBroken, "reconnect asked", {}, Clock::now() - opened};
      }
    }
    pending.erase(0, start);
    if (ec) break;
  }
  if (s.closed() || stopping_) co_return StreamOutcome{Kind::kStopped, "", {}, {}};
  if (ok) {
    const std::string why = ec ? ec.message() : "the server ended the stream";
    co_return StreamOutcome{Kind::kBroken, why, {}, Clock::now() - opened};
  }
  if (status >= 500) {
    co_return StreamOutcome{
        Kind::kFailed, "HTTP " + std::to_string(status) + " " + pending, {}, {}};
  }
  co_return StreamOutcome{Kind::kFinal, "", HttpResponse{status, std::move(pending), ep.url}, {}};
}

HttpClient::HttpClient(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpClient::~HttpClient() { impl_->Stop(); }

std::expected<std::unique_ptr<HttpClient>, std::string> HttpClient::New(HttpClientOptions options) {
  auto impl = std::make_shared<Impl>(std::move(options));
  if (auto r = impl->Init(); !r) return std::unexpected(r.error());
  impl->Start();
  return std::unique_ptr<HttpClient>(new HttpClient(std::move(impl)));
}

const HttpClientOptions& HttpClient::options() const { return impl_->options(); }

Awaitable<HttpResult> HttpClient::Post(std::string path, std::string body, Retry retry) {
  std::shared_ptr<Impl> impl = impl_;
  std::function<void(std::function<void(HttpResult)>)> start =
      [impl, path = std::move(path), body = std::move(body),
       retry](std::function<void(HttpResult)> done) mutable {
        impl->Submit(std::move(path), std::move(body), retry, std::move(done));
      };
  co_return co_await AwaitCallback<HttpResult>(std::move(start));
}

std::shared_ptr<HttpStream> HttpClient::Stream(std::string path, StreamCallbacks callbacks) {
  auto stream = std::make_shared<StreamImpl>(impl_, std::move(path), std::move(callbacks));
  impl_->StartStream(stream);
  return stream;
}

}  // namespace storage::etcd3
