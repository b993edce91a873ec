// The HTTPS client: dialing (name lookup, connect, TLS with Go's order of certificate
// checks), one request, and the response read whole or as it arrives.
#include "pkg/genericserver/transport/https_client.h"

#include <utility>  // before Asio, see awaitable.h

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <limits>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "pkg/genericserver/transport/go_errors.h"
#include "pkg/util/openssl.h"

namespace transport {

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

// Cancels a name lookup when the call's deadline passes.
struct CancelResolver {
  std::shared_ptr<tcp::resolver> resolver;
  void operator()(const beast::error_code& ec) const {
    if (!ec) resolver->cancel();
  }
};

// Name lookup bounded by the deadline; IP literals need none.
Awaitable<std::expected<std::vector<tcp::endpoint>, std::string>> Lookup(
    std::string host, std::string port, Clock::time_point deadline) {
  std::vector<tcp::endpoint> out;
  unsigned long port_number = 0;
  try {
    port_number = std::stoul(port);
  } catch (...) {
    port_number = 65536;
  }
  if (port_number > 65535)
    co_return std::unexpected("dial tcp: lookup tcp/" + port + ": unknown port");
  beast::error_code ec;
  const net::ip::address addr = net::ip::make_address(host, ec);
  if (!ec) {
    out.emplace_back(addr, static_cast<unsigned short>(port_number));
    co_return out;
  }
  auto ex = co_await net::this_coro::executor;
  auto resolver = std::make_shared<tcp::resolver>(ex);
  net::steady_timer timer(ex);
  if (deadline != Clock::time_point::max()) {
    timer.expires_at(deadline);
    timer.async_wait(CancelResolver{resolver});
  }
  ec = {};
  auto results =
      co_await resolver->async_resolve(host, port, net::redirect_error(net::use_awaitable, ec));
  timer.cancel();
  if (ec == net::error::operation_aborted && Clock::now() >= deadline) {
    co_return std::unexpected(std::string(kDeadlineExceeded));
  }
  if (ec == net::error::host_not_found || ec == net::error::host_not_found_try_again ||
      (!ec && results.empty())) {
    co_return std::unexpected("dial tcp: lookup " + host + ": no such host");
  }
  if (ec) co_return std::unexpected("dial tcp: lookup " + host + ": " + ErrnoText(ec));
  for (const auto& entry : results) out.push_back(entry.endpoint());
  co_return out;
}

// Loads every certificate of a PEM bundle into the context's trust store.
std::expected<void, std::string> TrustBundle(net::ssl::context& ctx, const std::string& pem) {
  util::openssl::Bio bio = util::openssl::MemoryBio(pem);
  X509_STORE* store = SSL_CTX_get_cert_store(ctx.native_handle());
  int added = 0;
  while (bio != nullptr) {
    X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
    if (cert == nullptr) break;
    if (X509_STORE_add_cert(store, cert) == 1) ++added;
    X509_free(cert);
  }
  ERR_clear_error();
  if (added == 0) {
    return std::unexpected("unable to load root certificates: unable to parse bytes as PEM block");
  }
  return {};
}

void SetDeadline(beast::tcp_stream& s, Clock::time_point deadline) {
  if (deadline == Clock::time_point::max()) {
    s.expires_never();
  } else {
    s.expires_at(deadline);
  }
}

}  // namespace

std::optional<std::pair<std::string, std::string>> SplitHostPort(std::string_view hostport) {
  if (hostport.starts_with('[')) {
    const size_t close = hostport.find(']');
    if (close == std::string_view::npos || close + 1 >= hostport.size() ||
        hostport[close + 1] != ':') {
      return std::nullopt;
    }
    return std::pair{std::string(hostport.substr(1, close - 1)),
                     std::string(hostport.substr(close + 2))};
  }
  const size_t colon = hostport.rfind(':');
  if (colon == std::string_view::npos || hostport.find(':') != colon) return std::nullopt;
  return std::pair{std::string(hostport.substr(0, colon)), std::string(hostport.substr(colon + 1))};
}

struct TLSClient::Impl {
  // Mutable: OpenSSL takes the context non-const (reference counts); its settings are fixed
  // once New() returns.
  mutable net::ssl::context ctx{net::ssl::context::tls_client};
  bool insecure = false;
};

TLSClient::TLSClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TLSClient::~TLSClient() = default;

std::expected<std::shared_ptr<const TLSClient>, std::string> TLSClient::New(
    const TLSClientConfig& config) {
  try {
    auto impl = std::make_unique<Impl>();
    net::ssl::context& ctx = impl->ctx;
    ctx.set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                    net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 |
                    net::ssl::context::no_tlsv1_1);
    impl->insecure = config.insecure_skip_verify;
    if (config.ca_pem.empty()) {
      ctx.set_default_verify_paths();
    } else if (auto trusted = TrustBundle(ctx, config.ca_pem); !trusted) {
      // Only the bundle's certificates are trusted, as Go's RootCAs.
      return std::unexpected(trusted.error());
    }
    if (!config.cert_pem.empty() || !config.key_pem.empty()) {
      beast::error_code ec;
      ctx.use_certificate_chain(net::buffer(config.cert_pem), ec);
      if (!ec) ctx.use_private_key(net::buffer(config.key_pem), net::ssl::context::pem, ec);
      if (ec) {
        ERR_clear_error();
        return std::unexpected("tls: failed to find any PEM data in certificate or key input");
      }
    }
    // HTTP/1.1 only, as upstream's webhook clients (http://issue.k8s.io/75791).
    static const unsigned char kAlpn[] = "\x08http/1.1";
    SSL_CTX_set_alpn_protos(ctx.native_handle(), kAlpn, sizeof kAlpn - 1);
    ctx.set_verify_mode(impl->insecure ? net::ssl::verify_none : net::ssl::verify_peer);
    return std::shared_ptr<const TLSClient>(new TLSClient(std::move(impl)));
  } catch (const boost::system::system_error& e) {
    return std::unexpected(std::string("TLS configuration: ") + e.what());
  }
}

struct Connection::Impl {
  Impl(net::any_io_executor ex, net::ssl::context& ctx) : executor(ex), stream(ex, ctx) {}
  net::any_io_executor executor;
  std::shared_ptr<const TLSClient> tls;  // the context outlives the stream
  beast::ssl_stream<beast::tcp_stream> stream;
  beast::flat_buffer buffer;
  std::optional<http::response_parser<http::buffer_body>> parser;
  bool head_request = false;  // the answer to a HEAD has no body, whatever it declares
  std::string local, remote;

  beast::tcp_stream& tcp() { return beast::get_lowest_layer(stream); }
  // An I/O error of the exchange as Go words it.
  std::string Failure(std::string_view op, const beast::error_code& ec,
                      Clock::time_point deadline) {
    if (Clock::now() >= deadline) return kDeadlineExceeded;
    return IoError(op, ec, local, remote);
  }
};

Connection::Connection(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
Connection::~Connection() = default;

Awaitable<std::expected<std::unique_ptr<Connection>, std::string>> Connection::Dial(
    std::shared_ptr<const TLSClient> tls, std::string host, std::string port,
    std::string server_name, Clock::time_point deadline) {
  auto endpoints = co_await Lookup(host, port, deadline);
  if (!endpoints) co_return std::unexpected(endpoints.error());
  auto ex = co_await net::this_coro::executor;
  auto impl = std::make_shared<Impl>(ex, tls->impl().ctx);
  impl->tls = tls;
  beast::ssl_stream<beast::tcp_stream>& stream = impl->stream;
  beast::tcp_stream& tcp_stream = beast::get_lowest_layer(stream);
  beast::error_code ec;
  std::string dial_error;
  bool connected = false;
  for (const tcp::endpoint& ep : *endpoints) {
    SetDeadline(tcp_stream, deadline);
    ec = {};
    co_await tcp_stream.async_connect(ep, net::redirect_error(net::use_awaitable, ec));
    if (!ec) {
      connected = true;
      break;
    }
    if (ec == beast::error::timeout || Clock::now() >= deadline) {
      co_return std::unexpected(std::string(kDeadlineExceeded));
    }
    if (dial_error.empty())
      dial_error = "dial tcp " + EndpointString(ep) + ": connect: " + ErrnoText(ec);
    beast::error_code ignored;
    tcp_stream.socket().close(ignored);
  }
  if (!connected) co_return std::unexpected(dial_error);
  std::string& local = impl->local;
  std::string& remote = impl->remote;
  {
    beast::error_code ignored;
    local = EndpointString(tcp_stream.socket().local_endpoint(ignored));
    remote = EndpointString(tcp_stream.socket().remote_endpoint(ignored));
    tcp_stream.socket().set_option(tcp::no_delay(true), ignored);
  }

  SSL* ssl = stream.native_handle();
  const bool ip = IsIPLiteral(server_name);
  if (!ip) SSL_set_tlsext_host_name(ssl, server_name.c_str());
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  X509_VERIFY_PARAM_set_hostflags(
      param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT);
  if (ip) {
    X509_VERIFY_PARAM_set1_ip_asc(param, server_name.c_str());
  } else {
    X509_VERIFY_PARAM_set1_host(param, server_name.c_str(), server_name.size());
  }
  VerifyRecord verify;
  if (!tls->impl().insecure) {
    stream.set_verify_mode(net::ssl::verify_peer);
    stream.set_verify_callback(RecordVerifyErrors{&verify});
  }
  ec = {};
  co_await stream.async_handshake(net::ssl::stream_base::client,
                                  net::redirect_error(net::use_awaitable, ec));
  if (ec) {
    ERR_clear_error();
    if (Clock::now() >= deadline) co_return std::unexpected(std::string(kDeadlineExceeded));
    co_return std::unexpected(HandshakeError(ec, local, remote));
  }
  if (auto bad = VerifyErrorText(verify, ssl, server_name)) {
    beast::error_code ignored;
    tcp_stream.socket().close(ignored);
    co_return std::unexpected("tls: failed to verify certificate: " + *bad);
  }

  co_return std::unique_ptr<Connection>(new Connection(std::move(impl)));
}

Awaitable<std::expected<void, std::string>> Connection::Send(std::string method, std::string target,
                                                             const genericserver::Headers& headers,
                                                             std::string body,
                                                             Clock::time_point deadline) {
  Impl& c = *impl_;
  http::request<http::string_body> req;
  c.head_request = method == "HEAD";
  req.method_string(method);
  req.target(target);
  req.version(11);
  for (const auto& [name, value] : headers.Items()) req.insert(name, value);
  const bool has_body = !body.empty() || (method != "GET" && method != "HEAD");
  req.body() = std::move(body);
  if (has_body) req.prepare_payload();
  SetDeadline(c.tcp(), deadline);
  beast::error_code ec;
  co_await http::async_write(c.stream, req, net::redirect_error(net::use_awaitable, ec));
  if (ec) co_return std::unexpected(c.Failure("write", ec, deadline));
  co_return std::expected<void, std::string>();
}

Awaitable<std::expected<ResponseHead, std::string>> Connection::ReadHead(
    Clock::time_point deadline) {
  Impl& c = *impl_;
  c.parser.emplace();
  c.parser->body_limit(std::numeric_limits<uint64_t>::max());
  c.parser->skip(c.head_request);
  SetDeadline(c.tcp(), deadline);
  beast::error_code ec;
  co_await http::async_read_header(c.stream, c.buffer, *c.parser,
                                   net::redirect_error(net::use_awaitable, ec));
  if (ec) co_return std::unexpected(c.Failure("read", ec, deadline));
  ResponseHead head;
  const auto& message = c.parser->get();
  head.status = static_cast<int>(message.result_int());
  head.keep_alive = message.keep_alive();
  for (const auto& field : message) {
    head.headers.Add(std::string(field.name_string()), std::string(field.value()));
  }
  if (c.parser->is_done()) {
    head.content_length = 0;  // no body follows (HEAD, 204, 304)
  } else if (!c.parser->chunked()) {
    if (auto length = c.parser->content_length()) head.content_length = *length;
  }
  co_return head;
}

Awaitable<std::expected<std::optional<std::string>, std::string>> Connection::ReadSome(
    Clock::time_point deadline) {
  Impl& c = *impl_;
  std::string piece(64 * 1024, '\0');
  while (!c.parser->is_done()) {
    auto& body = c.parser->get().body();
    body.data = piece.data();
    body.size = piece.size();
    SetDeadline(c.tcp(), deadline);
    beast::error_code ec;
    co_await http::async_read_some(c.stream, c.buffer, *c.parser,
                                   net::redirect_error(net::use_awaitable, ec));
    if (ec == http::error::need_buffer) ec = {};
    if (ec) co_return std::unexpected(c.Failure("read", ec, deadline));
    const size_t produced = piece.size() - c.parser->get().body().size;
    if (produced > 0) {
      piece.resize(produced);
      co_return std::optional<std::string>(std::move(piece));
    }
  }
  co_return std::optional<std::string>();
}

Awaitable<std::expected<std::string, std::string>> Connection::ReadAll(uint64_t limit,
                                                                       Clock::time_point deadline) {
  std::string all;
  while (true) {
    auto piece = co_await ReadSome(deadline);
    if (!piece) co_return std::unexpected(piece.error());
    if (!*piece) break;
    all += **piece;
    if (all.size() > limit) co_return std::unexpected("net/http: response body too large");
  }
  co_return all;
}

void Connection::Close() {
  std::weak_ptr<Impl> weak = impl_;
  net::post(impl_->executor, [weak] {
    auto c = weak.lock();
    if (!c) return;
    beast::error_code ignored;
    c->tcp().socket().shutdown(tcp::socket::shutdown_both, ignored);
    c->tcp().socket().close(ignored);
  });
}

}  // namespace transport
