// HttpClient's connections, requests and failover; streams are in http_stream.cc. With it
// and http_client_impl.h, the only files of the etcd backend that include Beast. Everything
// below runs on the client's one I/O thread unless it says so.
#include "pkg/genericserver/storage/etcd3/http_client.h"

#include <utility>  // before Asio, see awaitable.h

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <poll.h>

#include <limits>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "pkg/genericserver/storage/completion.h"
#include "pkg/genericserver/storage/etcd3/http_client_impl.h"
#include "pkg/util/log.h"

namespace storage::etcd3 {

namespace {

constexpr size_t kMaxIdlePerEndpoint = 16;

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

void Connection::Close() {
  beast::error_code ignored;
  Tcp().socket().shutdown(tcp::socket::shutdown_both, ignored);
  Tcp().close();
}

bool Connection::StillOpen() {
  if (!Tcp().socket().is_open()) return false;
  pollfd p{Tcp().socket().native_handle(), POLLIN | POLLRDHUP, 0};
  return ::poll(&p, 1, 0) == 0;
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

}  // namespace storage::etcd3
