#pragma once
// Helpers of the client library's tests against an in-process fake API server: a TLS
// listener (SecureServer with a throwaway CA) serving one Handler on its own thread, the
// RestConfig that trusts it, and a loop that runs the client's io_context on the test thread
// until a condition holds or a deadline passes.

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "pkg/client/kubeconfig.h"
#include "pkg/genericserver/server/secure_serving.h"
#include "pkg/pki/pki.h"
#include "pkg/util/file.h"

namespace clienttest {

// A listener on a free loopback port, run by a thread of its own.
class TestApiServer {
 public:
  explicit TestApiServer(genericserver::Handler& handler) {
    char tmpl[] = "/tmp/kas-client-test-XXXXXX";
    char* made = mkdtemp(tmpl);
    REQUIRE(made != nullptr);
    dir_ = made;
    auto ca = pki::GenerateCA("client-test-ca", std::chrono::hours(1));
    REQUIRE(ca);
    pki::CertRequest req;
    req.common_name = "fake-apiserver";
    req.ip_addresses = {"127.0.0.1"};
    req.server_auth = true;
    auto leaf = pki::GenerateSigned(*ca, req);
    REQUIRE(leaf);
    ca_pem_ = ca->cert_pem;
    genericserver::SecureServingInfo info;
    info.bind_address = "127.0.0.1";
    info.port = 0;
    info.cert_file = dir_ + "/tls.crt";
    info.key_file = dir_ + "/tls.key";
    REQUIRE(util::WriteFileAtomic(info.cert_file, leaf->cert_pem, 0600));
    REQUIRE(util::WriteFileAtomic(info.key_file, leaf->key_pem, 0600));
    auto created = genericserver::SecureServer::Create(io_, info, handler);
    REQUIRE(created);
    server_ = std::move(*created);
    server_->Start();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~TestApiServer() {
    server_->StopAccepting();
    server_->CloseAllConnections();
    io_.stop();
    thread_.join();
    std::filesystem::remove_all(dir_);
  }
  TestApiServer(const TestApiServer&) = delete;
  TestApiServer& operator=(const TestApiServer&) = delete;

  int Port() const { return server_->Port(); }
  // Trusts the server's CA; no client-side rate limit.
  client::RestConfig Config() const {
    client::RestConfig c;
    c.host = "https://127.0.0.1:" + std::to_string(Port());
    c.ca_pem = ca_pem_;
    c.qps = -1;
    return c;
  }

 private:
  std::string dir_, ca_pem_;
  boost::asio::io_context io_;
  std::unique_ptr<genericserver::SecureServer> server_;
  std::thread thread_;
};

// Runs `io` on the calling thread until pred() holds (true) or `timeout` passed (false).
template <class Pred>
bool PollUntil(boost::asio::io_context& io, Pred pred, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (pred()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    if (io.stopped()) io.restart();
    io.run_for(std::chrono::milliseconds(5));
  }
}

// A failure Status as the API server writes it.
inline std::string StatusBody(int code, const std::string& reason, const std::string& message) {
  nlohmann::json status = {
      {"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
      {"status", "Failure"}, {"message", message}, {"reason", reason},
      {"code", code}};
  return status.dump();
}

}  // namespace clienttest
