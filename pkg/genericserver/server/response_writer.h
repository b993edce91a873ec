#pragma once
// How a handler answers. Either one complete response (Respond) or a chunked stream
// (StartStream, WriteChunk..., FinishStream); never both, and Respond at most once.
// Implementations are used from one coroutine at a time (the connection's strand).

#include <functional>
#include <string>
#include <string_view>

#include "pkg/genericserver/server/awaitable.h"
#include "pkg/genericserver/server/request.h"

namespace genericserver {

struct Response {
  int status = 200;
  Headers headers;
  std::string body;
};

class ResponseWriter {
 public:
  virtual ~ResponseWriter() = default;
  virtual Awaitable<void> Respond(Response response) = 0;
  // Returns false when the client is gone; the handler should stop then.
  virtual Awaitable<bool> StartStream(int status, Headers headers) = 0;
  virtual Awaitable<bool> WriteChunk(std::string_view data) = 0;
  virtual Awaitable<void> FinishStream() = 0;
  // While a stream is open, `gone` runs once (on the connection's strand) if the client
  // closes the connection, so that a handler waiting for something to send stops at once
  // instead of at its next write. Call after StartStream succeeded; the registration ends
  // with the stream. Writers without a connection of their own ignore it.
  virtual void OnClientGone(std::function<void()> gone) { (void)gone; }
  // True once a response or a stream has been started: no other may be.
  virtual bool Started() const = 0;
  // The status sent, or 0 before anything was.
  virtual int StatusCode() const = 0;
  // Fields added to whatever response is sent later (Audit-Id, Warning, ...).
  virtual Headers& ExtraHeaders() = 0;
};

}  // namespace genericserver
