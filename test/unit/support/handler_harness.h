#pragma once
// Runs handlers in-process on a private io_context and records what they answer.

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/server/handler.h"

namespace testing {

struct Recorded {
  int status = 0;
  genericserver::Headers headers;
  std::string body;
  bool streamed = false;
  bool finished = false;
  nlohmann::json Json() const { return nlohmann::json::parse(body); }
};

class RecordingWriter final : public genericserver::ResponseWriter {
 public:
  Awaitable<void> Respond(genericserver::Response r) override;
  Awaitable<bool> StartStream(int status, genericserver::Headers headers) override;
  Awaitable<bool> WriteChunk(std::string_view data) override;
  Awaitable<void> FinishStream() override;
  bool Started() const override { return started_; }
  int StatusCode() const override { return recorded_.status; }
  genericserver::Headers& ExtraHeaders() override { return extra_; }
  const Recorded& Result() const { return recorded_; }

 private:
  bool started_ = false;
  Recorded recorded_;
  genericserver::Headers extra_;
};

// A request as the listener would hand it over.
genericserver::RequestContext MakeRequest(std::string method, std::string target,
                                          std::string body = "");
// Serves ctx with h and runs the loop until the handler returned.
Recorded Serve(genericserver::Handler& h, genericserver::RequestContext ctx);
// The same, with `alongside` running on the same loop meanwhile (writes during a watch).
Recorded Serve(genericserver::Handler& h, genericserver::RequestContext ctx,
               std::function<Awaitable<void>()> alongside);

}  // namespace testing
