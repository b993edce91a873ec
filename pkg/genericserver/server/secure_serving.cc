// The only translation unit that instantiates Beast: keep it that way, it is the
// slowest file of the build to compile.
#include "pkg/genericserver/server/secure_serving.h"

#include <utility>  // before Asio, see awaitable.h

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <mutex>
#include <set>
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "pkg/genericserver/apimachinery/status.h"
#include "pkg/genericserver/server/responses.h"
#include "pkg/genericserver/server/tls_context.h"
#include "pkg/util/log.h"

namespace genericserver {
namespace {

namespace net = boost::asio;
namespace ssl = net::ssl;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

std::string HttpDate() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

}  // namespace

struct SecureServer::Impl : std::enable_shared_from_this<SecureServer::Impl> {
  class Session;

  Impl(net::io_context& io, const SecureServingInfo& info, Handler& handler,
       std::unique_ptr<ssl::context> tls, CAStore request_header_cas)
      : io(io),
        acceptor(io),
        limits(info.limits),
        handler(handler),
        tls(std::move(tls)),
        request_header_cas(std::move(request_header_cas)) {}

  Awaitable<void> AcceptLoop();
  void Register(const std::shared_ptr<Session>& s);
  void Unregister(Session* s);
  void RequestStarted() { ++active_requests; }
  void RequestFinished() {
    if (--active_requests == 0) {
      std::lock_guard lock(mu);
      idle_cv.notify_all();
    }
  }

  net::io_context& io;
  tcp::acceptor acceptor;
  const ServingLimits limits;
  Handler& handler;
  std::unique_ptr<ssl::context> tls;
  CAStore request_header_cas;  // null: no request-header CA
  std::atomic<bool> draining{false};
  std::atomic<int> active_requests{0};
  std::mutex mu;  // guards sessions and idle_cv waits
  std::condition_variable idle_cv;
  std::set<std::shared_ptr<Session>> sessions;
};

class SecureServer::Impl::Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, Impl& server)
      : server_(server), stream_(beast::tcp_stream(std::move(socket)), *server.tls) {
    boost::system::error_code ec;
    auto ep = stream_.next_layer().socket().remote_endpoint(ec);
    if (!ec) {
      remote_ =
          ep.address().is_v6() ? "[" + ep.address().to_string() + "]" : ep.address().to_string();
      remote_ += ":" + std::to_string(ep.port());
    }
  }

  net::any_io_executor Executor() { return stream_.get_executor(); }

  // Closes the connection if it is waiting for a request; otherwise it closes itself
  // after the current response. Runs on the session's strand.
  void CloseIfIdle() {
    net::post(Executor(), [self = shared_from_this()] {
      if (self->idle_) self->Close();
    });
  }
  void CloseNow() {
    net::post(Executor(), [self = shared_from_this()] { self->Close(); });
  }

  Awaitable<void> Run();

 private:
  class Writer;

  void Close() {
    boost::system::error_code ec;
    stream_.next_layer().socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.next_layer().socket().close(ec);
  }

  // Writes a response produced by the transport itself (limits, parse errors) and
  // leaves the connection to be closed.
  Awaitable<void> WriteTransportError(http::status status, const std::string& content_type,
                                      std::string body) {
    http::response<http::string_body> res{status, 11};
    res.set(http::field::date, HttpDate());
    res.set(http::field::content_type, content_type);
    res.set(http::field::cache_control, "no-cache, private");
    res.keep_alive(false);
    res.body() = std::move(body);
    res.prepare_payload();
    stream_.next_layer().expires_after(server_.limits.write_timeout);
    co_await http::async_write(stream_, res, net::use_awaitable);
  }

  enum class ReadResult { kClose, kServe, kServeBodyTooLarge };
  Awaitable<ReadResult> ReadRequest(http::request_parser<http::string_body>& parser);
  Awaitable<void> Serve(http::request<http::string_body>& req, bool body_too_large,
                        bool& keep_alive);
  // Reads and drops what the client still sends, briefly, so that closing the socket
  // does not reset the connection before the client read our answer.
  Awaitable<void> DiscardInput();

  Impl& server_;
  TlsStream stream_;
  beast::flat_buffer buffer_;
  std::string remote_;
  std::shared_ptr<const TlsPeer> peer_;
  bool idle_ = true;
};

// Writes the handler's response on the session's stream. Used from the session's strand.
class SecureServer::Impl::Session::Writer final : public ResponseWriter {
 public:
  Writer(Session& s, bool keep_alive, bool head) : s_(s), keep_alive_(keep_alive), head_(head) {}

  Awaitable<void> Respond(Response r) override {
    if (started_) throw std::logic_error("response already started");
    started_ = true;
    status_ = r.status;
    http::response<http::string_body> res{static_cast<http::status>(r.status), 11};
    SetHeaders(res, r.headers);
    res.keep_alive(KeepAlive());
    res.body() = std::move(r.body);
    res.prepare_payload();
    s_.stream_.next_layer().expires_after(s_.server_.limits.write_timeout);
    if (head_) {
      http::response<http::empty_body> header_only{res.result(), 11};
      for (const auto& f : res) header_only.set(f.name_string(), f.value());
      http::response_serializer<http::empty_body> sr{header_only};
      co_await http::async_write_header(s_.stream_, sr, net::use_awaitable);
    } else {
      co_await http::async_write(s_.stream_, res, net::use_awaitable);
    }
    s_.stream_.next_layer().expires_never();
  }

  Awaitable<bool> StartStream(int status, Headers headers) override {
    if (started_) throw std::logic_error("response already started");
    started_ = true;
    streaming_ = true;
    status_ = status;
    http::response<http::empty_body> res{static_cast<http::status>(status), 11};
    SetHeaders(res, headers);
    res.keep_alive(KeepAlive());
    res.chunked(true);
    http::response_serializer<http::empty_body> sr{res};
    try {
      s_.stream_.next_layer().expires_after(s_.server_.limits.write_timeout);
      co_await http::async_write_header(s_.stream_, sr, net::use_awaitable);
      s_.stream_.next_layer().expires_never();
      co_return true;
    } catch (const boost::system::system_error&) {
      failed_ = true;
      co_return false;
    }
  }

  Awaitable<bool> WriteChunk(std::string_view data) override {
    if (!streaming_ || failed_) co_return false;
    if (data.empty()) co_return true;  // an empty chunk would end the stream
    try {
      s_.stream_.next_layer().expires_after(s_.server_.limits.write_timeout);
      co_await net::async_write(s_.stream_, http::make_chunk(net::buffer(data)),
                                net::use_awaitable);
      s_.stream_.next_layer().expires_never();
      co_return true;
    } catch (const boost::system::system_error&) {
      failed_ = true;
      co_return false;
    }
  }

  Awaitable<void> FinishStream() override {
    if (!streaming_ || failed_ || finished_) co_return;
    finished_ = true;
    EndInputWatch();
    s_.stream_.next_layer().expires_after(s_.server_.limits.write_timeout);
    co_await net::async_write(s_.stream_, http::make_chunk_last(), net::use_awaitable);
    s_.stream_.next_layer().expires_never();
  }

  // A read runs beside the stream's writes (TLS streams allow one of each at a time):
  // it ends with an error when the client closes the connection. Whatever the client
  // might send meanwhile is dropped, so the connection is not reused after such a stream.
  void OnClientGone(std::function<void()> gone) override {
    if (!streaming_ || failed_ || finished_ || input_watch_) return;
    input_watch_ = std::make_shared<InputWatch>();
    input_watch_->gone = std::move(gone);
    net::co_spawn(s_.Executor(), WatchInput(s_.shared_from_this(), input_watch_), net::detached);
  }

  ~Writer() override { EndInputWatch(); }

  bool Started() const override { return started_; }
  int StatusCode() const override { return status_; }
  Headers& ExtraHeaders() override { return extra_; }

  // The connection can carry another request after this response.
  bool Reusable() const {
    return KeepAlive() && started_ && !failed_ && (!streaming_ || finished_) && !input_watch_;
  }

 private:
  // Shared by the writer and the read beside the stream, which may outlive the writer: it
  // ends when the session closes the socket after this response.
  struct InputWatch {
    std::function<void()> gone;  // empty once the stream ended
  };

  static Awaitable<void> WatchInput(std::shared_ptr<Session> s, std::shared_ptr<InputWatch> w) {
    std::array<char, 1024> scratch;
    boost::system::error_code ec;
    while (!ec && w->gone) {
      co_await s->stream_.async_read_some(net::buffer(scratch),
                                          net::redirect_error(net::use_awaitable, ec));
    }
    if (auto gone = std::exchange(w->gone, nullptr)) gone();
  }

  void EndInputWatch() {
    if (input_watch_) input_watch_->gone = nullptr;
  }

  bool KeepAlive() const { return keep_alive_ && !s_.server_.draining; }

  template <class Message>
  void SetHeaders(Message& res, const Headers& headers) {
    res.set(http::field::date, HttpDate());
    // Extra headers replace the response's own, but one a handler added several times
    // (Warning) is sent as many times.
    for (const auto& [k, v] : extra_.Items()) res.erase(k);
    for (const auto& [k, v] : extra_.Items()) res.insert(k, v);
    for (const auto& [k, v] : headers.Items()) res.insert(k, v);
  }

  Session& s_;
  bool keep_alive_;
  bool head_;
  bool started_ = false;
  bool streaming_ = false;
  bool finished_ = false;
  bool failed_ = false;
  int status_ = 0;
  Headers extra_;
  std::shared_ptr<InputWatch> input_watch_;
};

// Reads one request into parser. kClose: close without an answer (client gone, idle
// timeout, shutdown, or a malformed request this function already answered).
// kServeBodyTooLarge: the header is in parser but the body was over the limit and is
// not read; the handler chain answers 413 once it knows who asks.
Awaitable<SecureServer::Impl::Session::ReadResult> SecureServer::Impl::Session::ReadRequest(
    http::request_parser<http::string_body>& parser) {
  const ServingLimits& limits = server_.limits;
  parser.header_limit(static_cast<std::uint32_t>(limits.max_header_bytes));
  parser.body_limit(limits.max_request_body_bytes);
  boost::system::error_code ec;

  // Wait for the first byte of the next request under the idle timeout, then give the
  // rest of the header the (shorter) header timeout.
  idle_ = true;
  if (server_.draining) co_return ReadResult::kClose;
  if (buffer_.size() == 0) {
    stream_.next_layer().expires_after(limits.idle_timeout);
    auto n = co_await stream_.async_read_some(buffer_.prepare(4096),
                                              net::redirect_error(net::use_awaitable, ec));
    if (ec) co_return ReadResult::kClose;
    buffer_.commit(n);
  }
  idle_ = false;
  stream_.next_layer().expires_after(limits.read_header_timeout);
  co_await http::async_read_header(stream_, buffer_, parser,
                                   net::redirect_error(net::use_awaitable, ec));
  // Beast checks a Content-Length against the body limit as soon as the header is read.
  if (ec == http::error::body_limit) co_return ReadResult::kServeBodyTooLarge;
  if (ec == http::error::header_limit) {
    co_await WriteTransportError(http::status::request_header_fields_too_large,
                                 "text/plain; charset=utf-8",
                                 "431 Request Header Fields Too Large");
    co_return ReadResult::kClose;
  }
  if (ec == beast::error::timeout || ec == http::error::end_of_stream || ec == net::error::eof ||
      ec == net::ssl::error::stream_truncated) {
    co_return ReadResult::kClose;
  }
  if (ec) {
    KLOG_V(4) << "bad request from " << remote_ << ": " << ec.message();
    co_await WriteTransportError(http::status::bad_request, "text/plain; charset=utf-8",
                                 "400 Bad Request");
    co_return ReadResult::kClose;
  }
  if (parser.get()[http::field::expect] == "100-continue") {
    http::response<http::empty_body> cont{http::status::continue_, 11};
    stream_.next_layer().expires_after(limits.write_timeout);
    co_await http::async_write(stream_, cont, net::use_awaitable);
  }
  stream_.next_layer().expires_after(limits.read_body_timeout);
  co_await http::async_read(stream_, buffer_, parser, net::redirect_error(net::use_awaitable, ec));
  if (ec == http::error::body_limit) co_return ReadResult::kServeBodyTooLarge;  // chunked
  if (ec) {
    KLOG_V(4) << "reading request body from " << remote_ << ": " << ec.message();
    co_return ReadResult::kClose;
  }
  stream_.next_layer().expires_never();
  co_return ReadResult::kServe;
}

Awaitable<void> SecureServer::Impl::Session::DiscardInput() {
  boost::system::error_code ec;
  size_t discarded = 0;
  stream_.next_layer().expires_after(std::chrono::seconds(1));
  while (!ec && discarded < 2 * server_.limits.max_request_body_bytes) {
    buffer_.consume(buffer_.size());
    discarded += co_await stream_.async_read_some(buffer_.prepare(64 * 1024),
                                                  net::redirect_error(net::use_awaitable, ec));
  }
}

Awaitable<void> SecureServer::Impl::Session::Serve(http::request<http::string_body>& req,
                                                   bool body_too_large, bool& keep_alive) {
  RequestContext ctx;
  ctx.request = Request::FromTarget(std::string(req.method_string()), std::string(req.target()));
  for (const auto& field : req) {
    ctx.request.headers.Add(std::string(field.name_string()), std::string(field.value()));
  }
  ctx.request.body = std::move(req.body());
  ctx.request.body_too_large = body_too_large;
  ctx.request.remote_address = remote_;
  ctx.request.peer = peer_;

  // The unread rest of an oversized body makes the connection unusable afterwards.
  Writer writer(*this, req.keep_alive() && !body_too_large, req.method() == http::verb::head);
  server_.RequestStarted();
  struct Done {
    Impl& s;
    ~Done() { s.RequestFinished(); }
  } done{server_};
  co_await server_.handler.Serve(ctx, writer);
  if (!writer.Started()) {
    // A handler that returns without answering is a bug; never leave the client hanging.
    co_await WriteStatus(writer,
                         apimachinery::NewInternalError("the handler did not write a response"));
  }
  keep_alive = writer.Reusable();
}

Awaitable<void> SecureServer::Impl::Session::Run() {
  try {
    stream_.next_layer().expires_after(server_.limits.handshake_timeout);
    co_await stream_.async_handshake(ssl::stream_base::server, net::use_awaitable);
    peer_ = ExtractPeer(stream_.native_handle(), server_.request_header_cas.get());
    for (;;) {
      http::request_parser<http::string_body> parser;
      ReadResult read = co_await ReadRequest(parser);
      if (read == ReadResult::kClose) break;
      bool keep_alive = false;
      co_await Serve(parser.get(), read == ReadResult::kServeBodyTooLarge, keep_alive);
      if (read == ReadResult::kServeBodyTooLarge) {
        co_await DiscardInput();
        break;
      }
      if (!keep_alive) break;
    }
  } catch (const boost::system::system_error& e) {
    KLOG_V(4) << "connection from " << remote_ << " ended: " << e.code().message();
  } catch (const std::exception& e) {
    KLOG_V(2) << "connection from " << remote_ << " ended: " << e.what();
  }
  Close();
}

void SecureServer::Impl::Register(const std::shared_ptr<Session>& s) {
  std::lock_guard lock(mu);
  sessions.insert(s);
}

void SecureServer::Impl::Unregister(Session* s) {
  std::lock_guard lock(mu);
  for (auto it = sessions.begin(); it != sessions.end(); ++it) {
    if (it->get() == s) {
      sessions.erase(it);
      return;
    }
  }
}

Awaitable<void> SecureServer::Impl::AcceptLoop() {
  auto self = shared_from_this();
  for (;;) {
    tcp::socket socket(net::make_strand(io));
    boost::system::error_code ec;
    co_await acceptor.async_accept(socket, net::redirect_error(net::use_awaitable, ec));
    if (ec) {
      if (!acceptor.is_open() || ec == net::error::operation_aborted) co_return;
      KLOG_WARNING << "accept failed: " << ec.message();
      // Out of file descriptors and the like: back off instead of spinning.
      net::steady_timer pause(io, std::chrono::milliseconds(50));
      co_await pause.async_wait(net::use_awaitable);
      continue;
    }
    socket.set_option(tcp::no_delay(true), ec);
    auto session = std::make_shared<Session>(std::move(socket), *this);
    Register(session);
    net::co_spawn(session->Executor(), session->Run(),
                  [self, raw = session.get()](std::exception_ptr) { self->Unregister(raw); });
  }
}

SecureServer::SecureServer(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
SecureServer::~SecureServer() = default;

std::expected<std::unique_ptr<SecureServer>, std::string> SecureServer::Create(
    net::io_context& io, const SecureServingInfo& info, Handler& handler) {
  auto tls = MakeTlsContext(info);
  if (!tls) return std::unexpected(tls.error());
  CAStore request_header_cas;
  if (!info.request_header_ca_files.empty()) {
    auto loaded = LoadCAStore(info.request_header_ca_files, "request-header CA");
    if (!loaded) return std::unexpected(loaded.error());
    request_header_cas = std::move(*loaded);
  }
  auto impl =
      std::make_shared<Impl>(io, info, handler, std::move(*tls), std::move(request_header_cas));
  boost::system::error_code ec;
  auto address = net::ip::make_address(info.bind_address, ec);
  if (ec) return std::unexpected("invalid bind address " + info.bind_address);
  tcp::endpoint endpoint(address, static_cast<unsigned short>(info.port));
  const std::string where = "listen tcp " + info.bind_address + ":" + std::to_string(info.port);
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec && address.is_v6()) impl->acceptor.set_option(net::ip::v6_only(false), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return std::unexpected(where + ": " + ec.message());
  return std::unique_ptr<SecureServer>(new SecureServer(std::move(impl)));
}

int SecureServer::Port() const { return impl_->acceptor.local_endpoint().port(); }

void SecureServer::Start() { net::co_spawn(impl_->io, impl_->AcceptLoop(), net::detached); }

void SecureServer::StopAccepting() {
  net::post(impl_->io, [impl = impl_] {
    boost::system::error_code ec;
    impl->acceptor.close(ec);
  });
}

void SecureServer::Drain() {
  impl_->draining = true;
  std::lock_guard lock(impl_->mu);
  for (const auto& s : impl_->sessions) s->CloseIfIdle();
}

bool SecureServer::WaitIdle(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(impl_->mu);
  return impl_->idle_cv.wait_until(lock, deadline, [&] { return impl_->active_requests == 0; });
}

void SecureServer::CloseAllConnections() {
  std::lock_guard lock(impl_->mu);
  for (const auto& s : impl_->sessions) s->CloseNow();
}

}  // namespace genericserver
