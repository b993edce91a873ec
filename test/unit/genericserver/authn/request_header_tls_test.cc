// The listener verifies a client certificate against the client CAs and, apart, against the
// request-header CAs: TlsPeer says which of them trusts it, over a real TLS connection.
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <mutex>
#include <thread>

#include "pkg/genericserver/server/request_context.h"
#include "pkg/genericserver/server/responses.h"
#include "pkg/genericserver/server/secure_serving.h"
#include "pkg/pki/pki.h"
#include "pkg/util/file.h"

namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;

// Remembers the peer of the last request.
class PeerRecorder final : public genericserver::Handler {
 public:
  Awaitable<void> Serve(genericserver::RequestContext& ctx,
                        genericserver::ResponseWriter& out) override {
    {
      std::lock_guard lock(mu_);
      last_ = ctx.request.peer ? *ctx.request.peer : genericserver::TlsPeer{};
    }
    co_await genericserver::WriteText(out, 200, "ok");
  }
  genericserver::TlsPeer Last() {
    std::lock_guard lock(mu_);
    return last_;
  }

 private:
  std::mutex mu_;
  genericserver::TlsPeer last_;
};

pki::KeyPair Client(const pki::KeyPair& ca, const std::string& cn) {
  pki::CertRequest req;
  req.common_name = cn;
  req.client_auth = true;
  return *pki::GenerateSigned(ca, req);
}

// One request over TLS, presenting `cert` (none when empty); the answer.
std::string Request(int port, const pki::KeyPair* cert) {
  net::io_context io;
  net::ssl::context tls(net::ssl::context::tls_client);
  tls.set_verify_mode(net::ssl::verify_none);
  if (cert) {
    tls.use_certificate(net::buffer(cert->cert_pem), net::ssl::context::pem);
    tls.use_private_key(net::buffer(cert->key_pem), net::ssl::context::pem);
  }
  net::ssl::stream<tcp::socket> stream(io, tls);
  stream.next_layer().connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  stream.handshake(net::ssl::stream_base::client);
  net::write(stream,
             net::buffer(std::string("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")));
  std::string out;
  char buf[4096];
  boost::system::error_code ec;
  for (;;) {
    size_t n = stream.read_some(net::buffer(buf), ec);
    if (ec) break;
    out.append(buf, n);
  }
  return out;
}

}  // namespace

TEST_CASE("serving: client CAs and request-header CAs verify client certificates apart") {
  char tmpl[] = "/tmp/kas-tls-peer-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  auto client_ca = *pki::GenerateCA("client-ca", std::chrono::hours(1));
  auto proxy_ca = *pki::GenerateCA("front-proxy-ca", std::chrono::hours(1));
  auto stranger_ca = *pki::GenerateCA("stranger", std::chrono::hours(1));
  pki::CertRequest serving;
  serving.common_name = "server";
  serving.ip_addresses = {"127.0.0.1"};
  serving.server_auth = true;
  auto leaf = *pki::GenerateSigned(client_ca, serving);
  REQUIRE(util::WriteFileAtomic(dir + "/tls.crt", leaf.cert_pem, 0600));
  REQUIRE(util::WriteFileAtomic(dir + "/tls.key", leaf.key_pem, 0600));
  REQUIRE(util::WriteFileAtomic(dir + "/ca.crt", client_ca.cert_pem, 0600));
  REQUIRE(util::WriteFileAtomic(dir + "/fp.crt", proxy_ca.cert_pem, 0600));

  genericserver::SecureServingInfo info;
  info.bind_address = "127.0.0.1";
  info.port = 0;
  info.cert_file = dir + "/tls.crt";
  info.key_file = dir + "/tls.key";
  info.client_ca_files = {dir + "/ca.crt"};
  info.request_header_ca_files = {dir + "/fp.crt"};
  PeerRecorder handler;
  net::io_context io;
  auto server = genericserver::SecureServer::Create(io, info, handler);
  REQUIRE(server);
  (*server)->Start();
  std::thread thread([&io] { io.run(); });

  const auto admin = Client(client_ca, "admin");
  const auto proxy = Client(proxy_ca, "front-proxy-client");
  const auto stranger = Client(stranger_ca, "front-proxy-client");
  const int port = (*server)->Port();

  CHECK(Request(port, &admin).starts_with("HTTP/1.1 200"));
  auto peer = handler.Last();
  CHECK(peer.presented);
  CHECK(peer.common_name == "admin");
  CHECK(peer.verified);
  CHECK_FALSE(peer.request_header_verified);
  CHECK_FALSE(peer.request_header_verify_error.empty());

  CHECK(Request(port, &proxy).starts_with("HTTP/1.1 200"));
  peer = handler.Last();
  CHECK(peer.common_name == "front-proxy-client");
  CHECK_FALSE(peer.verified);
  CHECK(peer.request_header_verified);
  CHECK(peer.request_header_verify_error.empty());

  CHECK(Request(port, &stranger).starts_with("HTTP/1.1 200"));
  peer = handler.Last();
  CHECK(peer.presented);
  CHECK_FALSE(peer.verified);
  CHECK_FALSE(peer.request_header_verified);

  CHECK(Request(port, nullptr).starts_with("HTTP/1.1 200"));
  CHECK_FALSE(handler.Last().presented);

  // A missing request-header CA file fails creation with a message.
  info.request_header_ca_files = {dir + "/missing.crt"};
  auto broken = genericserver::SecureServer::Create(io, info, handler);
  REQUIRE_FALSE(broken);
  CHECK(broken.error().find("request-header CA") != std::string::npos);

  (*server)->StopAccepting();
  (*server)->CloseAllConnections();
  io.stop();
  thread.join();
  std::filesystem::remove_all(dir);
}
