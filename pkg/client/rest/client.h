#pragma once
// A client of the API server's REST API, as client-go's rest.RESTClient for this project's
// controllers and tests: requests by path over HTTPS/1.1 with the kubeconfig's TLS settings
// and credentials, a pool of keep-alive connections, client-side rate limiting (a token
// bucket of qps and burst, as client-go's flowcontrol), JSON bodies, Status errors decoded
// into ApiError, and streams (watches) read event by event.
//
// Threads: every member may be called from any thread or strand at once; the pool and the
// bucket are guarded by a mutex held only for bookkeeping, never across an await. Each
// exchange runs on the caller's executor. nlohmann/json is only declared here.

#include <chrono>
#include <expected>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <nlohmann/json_fwd.hpp>

#include "pkg/client/kubeconfig.h"
#include "pkg/genericserver/server/awaitable.h"
#include "pkg/genericserver/server/request.h"

namespace transport {
class TLSClient;
}  // namespace transport

namespace client {

struct PooledConnection;  // a connection and the strand its I/O runs on (client.cc)
using Clock = std::chrono::steady_clock;

// A failed request: the Status the server answered, or (code 0) why no answer came.
struct ApiError {
  int code = 0;
  std::string reason;  // Status.reason: NotFound, AlreadyExists, Conflict, Gone, Expired, ...
  std::string message;
  bool IsNotFound() const { return code == 404; }
  bool IsConflict() const { return code == 409 && reason != "AlreadyExists"; }
  bool IsAlreadyExists() const { return code == 409 && reason == "AlreadyExists"; }
  bool IsGone() const { return code == 410 || reason == "Expired" || reason == "Gone"; }
  std::string String() const;
};
template <class T>
using Result = std::expected<T, ApiError>;

// The error of a non-2xx answer from its body (a Status, or text).
ApiError ErrorFromResponse(int status, std::string_view body);

struct RawResponse {
  int status = 0;
  std::string content_type;
  std::string body;
};

// A response body read piece by piece: a watch. Next gives each JSON document of the stream
// (client-go's JSON framer: concatenated objects, whitespace between them).
class Stream {
 public:
  Stream(std::unique_ptr<PooledConnection> connection, Clock::duration idle_timeout);
  ~Stream();
  // The next document; std::nullopt at the stream's end; an error when the connection fails
  // or nothing arrives for the idle timeout.
  Awaitable<std::expected<std::optional<std::string>, std::string>> Next();
  // Ends the stream from any thread; a pending Next fails.
  void Close();

 private:
  std::unique_ptr<PooledConnection> connection_;
  Clock::duration idle_timeout_;
  std::string buffer_;
  size_t scanned_ = 0;  // buffer_[0, scanned_) holds no complete document yet
  int depth_ = 0;
  bool in_string_ = false, escaped_ = false, started_ = false;
};

class RestClient {
 public:
  // Fails when the TLS settings do not load or the host is not an https URL.
  // Connections are made on (strands of) `io`, an io_context's executor.
  static std::expected<std::shared_ptr<RestClient>, std::string> New(
      const RestConfig& config, std::string user_agent, boost::asio::any_io_executor io);
  ~RestClient();

  // One exchange: method and target ("/api/v1/pods?limit=500"), a body with its content
  // type, the Accept header. Any HTTP answer is a RawResponse; only transport failures are
  // errors (code 0).
  Awaitable<Result<RawResponse>> Do(std::string method, std::string target, std::string body = {},
                                    std::string content_type = {},
                                    std::string accept = "application/json",
                                    Clock::duration timeout = std::chrono::seconds(30));
  // A JSON exchange: a 2xx answer's body parsed, any other answer as ApiError.
  Awaitable<Result<nlohmann::json>> Json(std::string method, std::string target,
                                         const nlohmann::json* body = nullptr,
                                         std::string content_type = "application/json",
                                         Clock::duration timeout = std::chrono::seconds(30));
  Awaitable<Result<nlohmann::json>> Get(std::string target);
  Awaitable<Result<nlohmann::json>> Post(std::string target, const nlohmann::json& body);
  Awaitable<Result<nlohmann::json>> Put(std::string target, const nlohmann::json& body);
  Awaitable<Result<nlohmann::json>> Delete(std::string target,
                                           const nlohmann::json* options = nullptr);
  // content_type: application/merge-patch+json, application/json-patch+json,
  // application/strategic-merge-patch+json.
  Awaitable<Result<nlohmann::json>> Patch(std::string target, const nlohmann::json& patch,
                                          std::string content_type);

  // A streaming GET (?watch=1): an error unless the answer is 200.
  Awaitable<Result<std::unique_ptr<Stream>>> OpenStream(
      std::string target, std::string accept = "application/json",
      Clock::duration idle_timeout = std::chrono::minutes(15));

  const RestConfig& config() const { return config_; }
  // Requests sent, for benchmarks and tests.
  uint64_t RequestCount() const;

 private:
  RestClient() = default;
  Awaitable<void> WaitForToken();
  Awaitable<std::expected<std::unique_ptr<PooledConnection>, std::string>> Connect(
      Clock::time_point deadline);
  // The headers of every request: host, user agent, accept, the bearer token.
  Awaitable<std::expected<genericserver::Headers, std::string>> Headers(std::string accept) const;
  std::unique_ptr<PooledConnection> TakeIdle();
  void PutIdle(std::unique_ptr<PooledConnection> c);

  RestConfig config_;
  std::string user_agent_;
  std::string host_, port_, server_name_, path_prefix_;
  std::shared_ptr<const transport::TLSClient> tls_;
  boost::asio::any_io_executor io_;

  mutable std::mutex mu_;  // guards what follows
  std::vector<std::unique_ptr<PooledConnection>> idle_;
  double tokens_ = 0;
  Clock::time_point last_refill_{};
  uint64_t requests_ = 0;
};

}  // namespace client
