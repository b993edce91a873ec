#include "test/unit/apiextensions/conversion/webhook_server.h"

#include <utility>  // before Asio, see awaitable.h

#include <openssl/ssl.h>

#include <mutex>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

namespace conversion_test {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using json = nlohmann::json;
using Stream = beast::ssl_stream<beast::tcp_stream>;

// Declaration order matters for destruction: the TLS context outlives the io_context (whose
// destruction frees suspended sessions and their streams); the acceptor and hung connections go
// before it.
struct WebhookServer::State {
  net::ssl::context tls{net::ssl::context::tls_server};
  net::io_context io;
  tcp::acceptor acceptor{io};
  Handler handler;
  mutable std::mutex mu;
  std::vector<Seen> seen;
  std::vector<std::shared_ptr<Stream>> hung;
  std::thread thread;
};

namespace {

net::awaitable<void> Session(WebhookServer::State* st, tcp::socket socket) {
  auto stream = std::make_shared<Stream>(std::move(socket), st->tls);
  beast::error_code ec;
  co_await stream->async_handshake(net::ssl::stream_base::server,
                                   net::redirect_error(net::use_awaitable, ec));
  if (ec) co_return;
  beast::flat_buffer buffer;
  http::request<http::string_body> req;
  co_await http::async_read(*stream, buffer, req, net::redirect_error(net::use_awaitable, ec));
  if (ec) co_return;
  Seen seen;
  seen.target = std::string(req.target());
  seen.host = std::string(req[http::field::host]);
  seen.content_type = std::string(req[http::field::content_type]);
  seen.user_agent = std::string(req[http::field::user_agent]);
  if (const char* sni = SSL_get_servername(stream->native_handle(), TLSEXT_NAMETYPE_host_name)) {
    seen.sni = sni;
  }
  seen.review = json::parse(req.body(), nullptr, false);
  const Reply reply = st->handler(seen.review);
  {
    std::lock_guard lock(st->mu);
    st->seen.push_back(seen);
    if (reply.hang) {
      st->hung.push_back(stream);
      co_return;
    }
  }
  http::response<http::string_body> res(static_cast<http::status>(reply.status), 11);
  if (!reply.content_type.empty()) res.set(http::field::content_type, reply.content_type);
  res.body() = reply.body;
  res.keep_alive(false);
  res.prepare_payload();
  co_await http::async_write(*stream, res, net::redirect_error(net::use_awaitable, ec));
  beast::get_lowest_layer(*stream).socket().shutdown(tcp::socket::shutdown_send, ec);
}

net::awaitable<void> Accept(WebhookServer::State* st) {
  for (;;) {
    beast::error_code ec;
    tcp::socket socket =
        co_await st->acceptor.async_accept(net::redirect_error(net::use_awaitable, ec));
    if (ec) co_return;
    net::co_spawn(st->io, Session(st, std::move(socket)), net::detached);
  }
}

}  // namespace

WebhookServer::WebhookServer(const pki::KeyPair& serving, Handler handler)
    : state_(std::make_unique<State>()) {
  State* st = state_.get();
  st->handler = std::move(handler);
  st->tls.use_certificate_chain(net::buffer(serving.cert_pem));
  st->tls.use_private_key(net::buffer(serving.key_pem), net::ssl::context::pem);
  const tcp::endpoint ep(net::ip::make_address("127.0.0.1"), 0);
  st->acceptor.open(ep.protocol());
  st->acceptor.set_option(net::socket_base::reuse_address(true));
  st->acceptor.bind(ep);
  st->acceptor.listen();
  net::co_spawn(st->io, Accept(st), net::detached);
  st->thread = std::thread([st] { st->io.run(); });
}

WebhookServer::~WebhookServer() {
  state_->io.stop();
  state_->thread.join();
}

int WebhookServer::port() const { return state_->acceptor.local_endpoint().port(); }

std::vector<Seen> WebhookServer::seen() const {
  std::lock_guard lock(state_->mu);
  return state_->seen;
}

json ConvertedReview(const json& review) {
  const json& request = review.at("request");
  const std::string desired = request.at("desiredAPIVersion");
  json converted = json::array();
  for (json object : request.at("objects")) {
    json& spec = object["spec"];
    if (desired == "example.com/v2" && spec.contains("host")) {
      spec["hostname"] = spec["host"];
      spec.erase("host");
    } else if (desired == "example.com/v1" && spec.contains("hostname")) {
      spec["host"] = spec["hostname"];
      spec.erase("hostname");
    }
    object["apiVersion"] = desired;
    converted.push_back(object);
  }
  return json{{"apiVersion", "apiextensions.k8s.io/v1"},
              {"kind", "ConversionReview"},
              {"response",
               {{"uid", request.at("uid")},
                {"result", {{"status", "Success"}}},
                {"convertedObjects", converted}}}};
}

Reply JsonReply(const json& review) {
  Reply r;
  r.body = review.dump();
  return r;
}

Reply RenameField(const json& review) { return JsonReply(ConvertedReview(review)); }

int UnusedPort() {
  net::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

}  // namespace conversion_test
