#pragma once
// A small HTTP/1.1 client for JSON POSTs to a set of equivalent endpoints (the members
// of an etcd cluster): keep-alive connections per endpoint, TLS, a timeout per request,
// failover between endpoints, and streaming responses handed out as complete lines.
//
// The client owns one I/O thread; every connection lives there. Post() may be awaited
// from a coroutine on any io_context and resumes on that coroutine's own executor.
// Beast stays in http_client.cc, http_stream.cc and http_client_impl.h.

#include <chrono>
#include <expected>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/genericserver/server/awaitable.h"
#include "pkg/util/duration.h"

namespace storage::etcd3 {

// For https:// endpoints. The server certificate is always verified (against ca_file,
// or the system's trust store when it is empty) and must name the endpoint's host.
struct TlsConfig {
  std::string ca_file;    // PEM bundle
  std::string cert_file;  // client certificate (PEM), sent when set, with key_file
  std::string key_file;
};

struct HttpClientOptions {
  // "http://host:port" or "https://host:port"; the port defaults to etcd's 2379.
  std::vector<std::string> endpoints;
  TlsConfig tls;
  // Bounds one attempt on one endpoint: sending the request and reading the answer (for
  // a stream: up to its headers). Connecting is bounded by dial_timeout.
  util::Duration request_timeout = std::chrono::seconds(10);
  util::Duration dial_timeout = std::chrono::seconds(2);
  // A broken stream is re-established (on any endpoint, with backoff) for this long
  // before it ends with an error.
  util::Duration stream_retry_for = std::chrono::seconds(10);
};

struct HttpResponse {
  int status = 0;
  std::string body;
  std::string endpoint;  // the one that answered
};

struct HttpError {
  enum class Kind {
    kUnreachable,  // no endpoint took the request: it was applied nowhere
    kUncertain,    // sent, then the connection failed or timed out: it may have been applied
    kClosed,       // the client was shut down
  };
  Kind kind = Kind::kUnreachable;
  std::string message;
};

using HttpResult = std::expected<HttpResponse, HttpError>;

// How a failed attempt may be repeated on the next endpoint.
enum class Retry {
  // Reads and other requests that may be applied twice: after any connection error,
  // timeout or 5xx answer.
  kIdempotent,
  // Conditional writes: only when the request certainly reached no server (connecting
  // failed, or the request could not be written). A 5xx answer is returned as is.
  kUnsent,
};

// What a streaming request does with its response. Called on the client's thread, one
// at a time.
struct StreamCallbacks {
  // The body to send; asked again for every (re)connection, so that it can resume.
  std::function<std::string()> body;
  enum class Next { kContinue, kReconnect, kStop };
  // One complete line of a 2xx response (without the newline). kReconnect drops this
  // connection and opens another as after a failure; kStop ends the stream silently.
  std::function<Next(std::string_view line)> on_line;
  // Called at most once, when the stream ends other than by Close() or kStop: with a
  // response for a non-2xx, non-5xx answer (its whole body), or with an error when no
  // endpoint could be (re)connected for stream_retry_for, or on shutdown (kClosed).
  std::function<void(HttpResult)> on_end;
};

class HttpStream {
 public:
  virtual ~HttpStream() = default;
  // Ends the stream and its connection; any thread. A callback that is running (or
  // just starting) on the client's thread may still finish: callbacks must tolerate
  // running after Close().
  virtual void Close() = 0;
};

class HttpClient {
 public:
  // Fails for a malformed endpoint URL or unreadable TLS files. Connects lazily.
  static std::expected<std::unique_ptr<HttpClient>, std::string> New(HttpClientOptions options);
  // Closes every connection and stream (streams get on_end(kClosed)) and joins the
  // thread. Pending Post()s complete with kClosed. Not from the client's own callbacks.
  ~HttpClient();

  // POSTs a JSON body to path on the first endpoint that answers, starting with the one
  // that answered last. A response of any status is a value; the error says that no
  // answer came.
  Awaitable<HttpResult> Post(std::string path, std::string body, Retry retry);

  // Opens a streaming POST that reconnects (round robin, with backoff) when its
  // connection breaks, until Close() or the end described in StreamCallbacks.
  std::shared_ptr<HttpStream> Stream(std::string path, StreamCallbacks callbacks);

  const HttpClientOptions& options() const;

  class Impl;

 private:
  explicit HttpClient(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace storage::etcd3
