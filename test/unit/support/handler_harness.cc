#include "test/unit/support/handler_harness.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>

namespace testing {

Awaitable<void> RecordingWriter::Respond(genericserver::Response r) {
  if (started_) throw std::logic_error("response already started");
  started_ = true;
  recorded_.status = r.status;
  recorded_.headers = extra_;
  for (const auto& [k, v] : r.headers.Items()) recorded_.headers.Set(k, v);
  recorded_.body = std::move(r.body);
  co_return;
}

Awaitable<bool> RecordingWriter::StartStream(int status, genericserver::Headers headers) {
  if (started_) throw std::logic_error("response already started");
  started_ = true;
  recorded_.streamed = true;
  recorded_.status = status;
  recorded_.headers = extra_;
  for (const auto& [k, v] : headers.Items()) recorded_.headers.Set(k, v);
  co_return true;
}

Awaitable<bool> RecordingWriter::WriteChunk(std::string_view data) {
  recorded_.body += data;
  co_return true;
}

Awaitable<void> RecordingWriter::FinishStream() {
  recorded_.finished = true;
  co_return;
}

genericserver::RequestContext MakeRequest(std::string method, std::string target,
                                          std::string body) {
  genericserver::RequestContext ctx;
  ctx.request = genericserver::Request::FromTarget(std::move(method), std::move(target));
  ctx.request.body = std::move(body);
  ctx.request.remote_address = "127.0.0.1:1";
  return ctx;
}

Recorded Serve(genericserver::Handler& h, genericserver::RequestContext ctx) {
  return Serve(h, std::move(ctx), nullptr);
}

Recorded Serve(genericserver::Handler& h, genericserver::RequestContext ctx,
               std::function<Awaitable<void>()> alongside) {
  boost::asio::io_context io;
  if (alongside) boost::asio::co_spawn(io, alongside(), boost::asio::detached);
  RecordingWriter writer;
  std::exception_ptr error;
  bool done = false;
  boost::asio::co_spawn(
      boost::asio::make_strand(io), [&]() -> Awaitable<void> { co_await h.Serve(ctx, writer); },
      [&](std::exception_ptr e) {
        error = e;
        done = true;
      });
  io.run();
  if (error) std::rethrow_exception(error);
  if (!done) throw std::runtime_error("handler never completed");
  return writer.Result();
}

}  // namespace testing
