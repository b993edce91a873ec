#pragma once
// The HTTPS listener: TLS 1.2+ with ALPN http/1.1 only, an optional client certificate
// (verified, if presented, against the client CAs and apart against the request-header
// CAs), HTTP/1.1 keep-alive and chunked streaming, limits on headers and bodies, timeouts
// for slow clients. Every request read is handed to one root Handler. Beast lives in the
// .cc file only.

#include <chrono>
#include <expected>
#include <memory>
#include <string>
#include <vector>

#include "pkg/genericserver/server/handler.h"
#include "pkg/util/duration.h"

namespace boost::asio {
class io_context;
}

namespace genericserver {

struct ServingLimits {
  size_t max_request_body_bytes = 3 * 1024 * 1024;  // 413 above
  size_t max_header_bytes = 1 << 20;                // 431 above
  util::Duration handshake_timeout = std::chrono::seconds(10);
  util::Duration read_header_timeout = std::chrono::seconds(32);  // once a request began
  util::Duration read_body_timeout = std::chrono::seconds(60);
  util::Duration idle_timeout = std::chrono::seconds(90);   // between keep-alive requests
  util::Duration write_timeout = std::chrono::seconds(60);  // per write
};

struct SecureServingInfo {
  std::string bind_address = "0.0.0.0";
  int port = 6443;
  std::string cert_file;  // PEM chain, leaf first
  std::string key_file;
  std::vector<std::string> client_ca_files;  // PEM bundles trusted for client certificates
  // PEM bundles trusted for front-proxy certificates (request-header authentication), kept
  // apart from the client CAs: TlsPeer says which of the two verified a certificate.
  std::vector<std::string> request_header_ca_files;
  ServingLimits limits;
};

class SecureServer {
 public:
  // Loads the certificates and binds the port; fails with a message and binds nothing
  // when either fails. `handler` must outlive the server.
  static std::expected<std::unique_ptr<SecureServer>, std::string> Create(
      boost::asio::io_context& io, const SecureServingInfo& info, Handler& handler);
  ~SecureServer();

  int Port() const;
  void Start();
  void StopAccepting();
  // Closes idle keep-alive connections now; busy ones close after their current response.
  void Drain();
  // Blocks the calling (non-I/O) thread until no request is being served or deadline.
  bool WaitIdle(std::chrono::steady_clock::time_point deadline);
  void CloseAllConnections();

  struct Impl;

 private:
  explicit SecureServer(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace genericserver
