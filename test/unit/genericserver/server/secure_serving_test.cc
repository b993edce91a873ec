// The listener against misbehaving clients: slow or silent ones are cut off by the
// timeouts, and a drain lets the request in flight finish.
#include "pkg/genericserver/server/secure_serving.h"

#include <sys/socket.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <thread>

#include "pkg/genericserver/server/responses.h"
#include "pkg/pki/pki.h"
#include "pkg/util/file.h"

namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

class SlowHandler final : public genericserver::Handler {
 public:
  Awaitable<void> Serve(genericserver::RequestContext& ctx,
                        genericserver::ResponseWriter& out) override {
    if (ctx.request.path == "/slow") {
      net::steady_timer t(co_await net::this_coro::executor, 300ms);
      co_await t.async_wait(net::use_awaitable);
    }
    co_await genericserver::WriteText(out, 200, "done " + ctx.request.path);
  }
};

// A listener on a free loopback port with tight timeouts, run on its own thread.
class TestServer {
 public:
  explicit TestServer(genericserver::Handler& handler) {
    char tmpl[] = "/tmp/kas-serving-XXXXXX";
    dir_ = mkdtemp(tmpl);
    auto ca = pki::GenerateCA("test-ca", std::chrono::hours(1));
    pki::CertRequest req;
    req.common_name = "server";
    req.ip_addresses = {"127.0.0.1"};
    req.server_auth = true;
    auto leaf = pki::GenerateSigned(*ca, req);
    genericserver::SecureServingInfo info;
    info.bind_address = "127.0.0.1";
    info.port = 0;
    info.cert_file = dir_ + "/tls.crt";
    info.key_file = dir_ + "/tls.key";
    info.client_ca_files = {dir_ + "/ca.crt"};
    (void)util::WriteFileAtomic(info.cert_file, leaf->cert_pem, 0600);
    (void)util::WriteFileAtomic(info.key_file, leaf->key_pem, 0600);
    (void)util::WriteFileAtomic(dir_ + "/ca.crt", ca->cert_pem, 0600);
    info.limits.handshake_timeout = 300ms;
    info.limits.read_header_timeout = 300ms;
    info.limits.read_body_timeout = 300ms;
    info.limits.idle_timeout = 300ms;
    auto created = genericserver::SecureServer::Create(io_, info, handler);
    REQUIRE(created);
    server_ = std::move(*created);
    server_->Start();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~TestServer() {
    server_->StopAccepting();
    server_->CloseAllConnections();
    io_.stop();
    thread_.join();
    std::filesystem::remove_all(dir_);
  }
  int Port() const { return server_->Port(); }
  genericserver::SecureServer& Get() { return *server_; }

 private:
  std::string dir_;
  net::io_context io_;
  std::unique_ptr<genericserver::SecureServer> server_;
  std::thread thread_;
};

// A blocking TLS client; reads give up after 10 s so a broken server cannot hang the test.
class Client {
 public:
  explicit Client(int port, bool handshake = true)
      : tls_(net::ssl::context::tls_client), stream_(io_, tls_) {
    tls_.set_verify_mode(net::ssl::verify_none);
    stream_.next_layer().connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
    timeval tv{10, 0};
    setsockopt(stream_.next_layer().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (handshake) stream_.handshake(net::ssl::stream_base::client);
  }
  void Send(const std::string& data) { net::write(stream_, net::buffer(data)); }
  // Everything until the server closes the connection.
  std::string ReadToClose(bool tls = true) {
    std::string out;
    char buf[4096];
    boost::system::error_code ec;
    for (;;) {
      size_t n = tls ? stream_.read_some(net::buffer(buf), ec)
                     : stream_.next_layer().read_some(net::buffer(buf), ec);
      if (ec) break;
      out.append(buf, n);
    }
    last_error_ = ec;
    return out;
  }
  boost::system::error_code LastError() const { return last_error_; }

 private:
  net::io_context io_;
  net::ssl::context tls_;
  net::ssl::stream<tcp::socket> stream_;
  boost::system::error_code last_error_;
};

// The server closed the connection (not our 10 s read timeout).
bool ClosedByServer(const boost::system::error_code& ec) {
  return ec != net::error::would_block && ec != net::error::try_again &&
         ec != net::error::timed_out;
}

}  // namespace

TEST_CASE("serving: a client that never completes the handshake is dropped") {
  SlowHandler handler;
  TestServer server(handler);
  Client client(server.Port(), /*handshake=*/false);
  auto start = std::chrono::steady_clock::now();
  client.ReadToClose(/*tls=*/false);
  CHECK(ClosedByServer(client.LastError()));
  CHECK(std::chrono::steady_clock::now() - start < 5s);
}

TEST_CASE("serving: a header that never ends is dropped") {
  SlowHandler handler;
  TestServer server(handler);
  Client client(server.Port());
  client.Send("GET /x HTTP/1.1\r\nHost: a\r\n");
  std::string got = client.ReadToClose();
  CHECK(ClosedByServer(client.LastError()));
  CHECK(got.empty());
}

TEST_CASE("serving: a body shorter than its Content-Length is dropped") {
  SlowHandler handler;
  TestServer server(handler);
  Client client(server.Port());
  client.Send("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\nonly ten..");
  std::string got = client.ReadToClose();
  CHECK(ClosedByServer(client.LastError()));
  CHECK(got.empty());
}

TEST_CASE("serving: an idle keep-alive connection is closed after a response") {
  SlowHandler handler;
  TestServer server(handler);
  Client client(server.Port());
  client.Send("GET /first HTTP/1.1\r\nHost: a\r\n\r\n");
  std::string got = client.ReadToClose();
  CHECK(ClosedByServer(client.LastError()));
  CHECK(got.starts_with("HTTP/1.1 200 OK"));
  CHECK(got.ends_with("done /first"));
}

TEST_CASE("serving: a drain lets the request in flight finish, then closes") {
  SlowHandler handler;
  TestServer server(handler);
  Client client(server.Port());
  client.Send("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n");
  std::this_thread::sleep_for(100ms);  // the request is being served now
  server.Get().StopAccepting();
  server.Get().Drain();
  CHECK(server.Get().WaitIdle(std::chrono::steady_clock::now() + 5s));
  std::string got = client.ReadToClose();
  CHECK(got.starts_with("HTTP/1.1 200 OK"));
  CHECK(got.find("Connection: close") != std::string::npos);
  CHECK(got.ends_with("done /slow"));
}

TEST_CASE("serving: pipelined requests are answered in order") {
  SlowHandler handler;
  TestServer server(handler);
  Client client(server.Port());
  client.Send(
      "GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  std::string got = client.ReadToClose();
  size_t a = got.find("done /a"), b = got.find("done /b");
  CHECK(a != std::string::npos);
  CHECK(b != std::string::npos);
  CHECK(a < b);
}
