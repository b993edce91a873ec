#pragma once
// An HTTPS/1.1 client for the server's own outgoing calls (conversion webhooks, the
// aggregator's proxy and availability checks): one connection per exchange, the server
// certificate checked against a CA bundle for a given name, an optional client
// certificate, deadlines, a response body read whole or piece by piece, and every failure
// worded as Go's net/http and crypto/tls word it (the texts upstream's messages quote).
//
// Beast and OpenSSL stay in https_client.cc.

#include <chrono>
#include <expected>
#include <memory>
#include <optional>
#include <string>

#include "pkg/genericserver/server/awaitable.h"
#include "pkg/genericserver/server/request.h"

namespace transport {

using Clock = std::chrono::steady_clock;
inline constexpr char kDeadlineExceeded[] = "context deadline exceeded";

struct TLSClientConfig {
  std::string ca_pem;  // trusted roots; empty: the system's
  bool insecure_skip_verify = false;
  std::string cert_pem;  // client certificate (chain) and key, both or neither
  std::string key_pem;
};

// The TLS settings of a set of calls: immutable, shared by their connections.
class TLSClient {
 public:
  // Errors as Go's: "unable to load root certificates: unable to parse bytes as PEM block".
  static std::expected<std::shared_ptr<const TLSClient>, std::string> New(
      const TLSClientConfig& config);
  ~TLSClient();
  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  explicit TLSClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

struct ResponseHead {
  int status = 0;
  genericserver::Headers headers;
  // The body's length when the response declares one (and is not chunked); 0 when no body
  // follows (HEAD, 204, 304).
  std::optional<uint64_t> content_length;
  // The server keeps the connection open after the body (HTTP/1.1 without "Connection:
  // close", or HTTP/1.0 with "Connection: keep-alive").
  bool keep_alive = true;
};

// One connection, used by one coroutine at a time.
class Connection {
 public:
  // Resolves host (a name or an IP literal), connects to port and completes the TLS
  // handshake, presenting server_name (SNI unless an IP) and checking the certificate for
  // it, all before the deadline. The error is what Go puts after `Get "<url>": `.
  static Awaitable<std::expected<std::unique_ptr<Connection>, std::string>> Dial(
      std::shared_ptr<const TLSClient> tls, std::string host, std::string port,
      std::string server_name, Clock::time_point deadline);
  ~Connection();

  // Sends a request; headers are sent as given, and Content-Length is set for the body.
  Awaitable<std::expected<void, std::string>> Send(std::string method, std::string target,
                                                   const genericserver::Headers& headers,
                                                   std::string body, Clock::time_point deadline);
  Awaitable<std::expected<ResponseHead, std::string>> ReadHead(Clock::time_point deadline);
  // The next piece of the body as it arrives; std::nullopt after its end.
  Awaitable<std::expected<std::optional<std::string>, std::string>> ReadSome(
      Clock::time_point deadline);
  // The rest of the body; an error past `limit` bytes.
  Awaitable<std::expected<std::string, std::string>> ReadAll(uint64_t limit,
                                                             Clock::time_point deadline);
  // Ends the connection; an operation waiting on it fails. Safe from any thread once.
  void Close();

  struct Impl;

 private:
  explicit Connection(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;  // shared with a pending Close()
};

// "host:port" split as Go's net.SplitHostPort ("[v6]:port" too).
std::optional<std::pair<std::string, std::string>> SplitHostPort(std::string_view hostport);

}  // namespace transport
