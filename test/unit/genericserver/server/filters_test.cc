#include <catch2/catch.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "pkg/genericserver/server/filters/max_in_flight.h"
#include "pkg/genericserver/server/filters/recovery.h"
#include "pkg/genericserver/server/filters/request_info.h"
#include "pkg/genericserver/server/filters/request_log.h"
#include "pkg/genericserver/server/filters/timeout.h"
#include "pkg/genericserver/server/responses.h"
#include "test/unit/support/handler_harness.h"

namespace {

using namespace std::chrono_literals;
using genericserver::HandlerPtr;
using genericserver::MakeHandler;
using genericserver::RequestContext;
using genericserver::ResponseWriter;

Awaitable<void> Sleep(std::chrono::milliseconds d) {
  boost::asio::steady_timer t(co_await boost::asio::this_coro::executor, d);
  co_await t.async_wait(boost::asio::use_awaitable);
}

HandlerPtr Ok() {
  return MakeHandler([](RequestContext&, ResponseWriter& out) {
    return genericserver::WriteText(out, 200, "ok");
  });
}

// ctx with RequestInfo filled, as the chain's outer filter would.
RequestContext Req(std::string method, std::string target) {
  RequestContext ctx = testing::MakeRequest(std::move(method), std::move(target));
  ctx.info = *endpoints::RequestInfoResolver().Resolve(ctx.request);
  return ctx;
}

}  // namespace

TEST_CASE("timeout: a slow handler gets 504 at once and still finishes before the filter returns") {
  bool finished = false;
  bool wrote = false;
  auto slow = MakeHandler([&](RequestContext&, ResponseWriter& out) -> Awaitable<void> {
    co_await Sleep(200ms);
    finished = true;
    co_await genericserver::WriteText(out, 200, "late");
    wrote = true;
  });
  auto h = genericserver::filters::WithTimeout(std::move(slow), 30ms);
  auto start = std::chrono::steady_clock::now();
  auto r = testing::Serve(*h, Req("GET", "/api/v1/pods"));
  CHECK(std::chrono::steady_clock::now() - start >= 200ms);
  CHECK(finished);
  CHECK(wrote);  // the late write went nowhere, without an error
  CHECK(r.status == 504);
  auto j = r.Json();
  CHECK(j["reason"] == "Timeout");
  CHECK(j["message"] == "Timeout: request did not complete within the allotted timeout");
}

TEST_CASE("timeout: ?timeout= shortens the deadline, never lengthens it") {
  std::chrono::steady_clock::duration seen{};
  auto record = MakeHandler([&](RequestContext& ctx, ResponseWriter& out) {
    seen = ctx.deadline - ctx.received;
    return genericserver::WriteText(out, 200, "ok");
  });
  auto h = genericserver::filters::WithTimeout(std::move(record), 60s);
  CHECK(testing::Serve(*h, Req("GET", "/api/v1/pods?timeout=5s")).status == 200);
  CHECK(seen == 5s);
  testing::Serve(*h, Req("GET", "/api/v1/pods?timeout=10m"));
  CHECK(seen == 60s);
  testing::Serve(*h, Req("GET", "/api/v1/pods?timeout=0s"));
  CHECK(seen == 60s);
  auto bad = testing::Serve(*h, Req("GET", "/api/v1/pods?timeout=soon"));
  CHECK(bad.status == 400);
  CHECK(bad.Json()["message"] ==
        "invalid timeout specified in the request URL - time: invalid duration \"soon\"");
}

TEST_CASE("timeout: long-running requests have no deadline") {
  auto slow = MakeHandler([&](RequestContext& ctx, ResponseWriter& out) -> Awaitable<void> {
    CHECK(ctx.deadline == std::chrono::steady_clock::time_point::max());
    co_await Sleep(60ms);
    co_await genericserver::WriteText(out, 200, "streamed");
  });
  auto h = genericserver::filters::WithTimeout(std::move(slow), 10ms);
  CHECK(testing::Serve(*h, Req("GET", "/api/v1/pods?watch=true")).status == 200);
}

TEST_CASE("timeout: an exception in the handler still reaches the filters outside") {
  auto thrower = MakeHandler([](RequestContext&, ResponseWriter&) -> Awaitable<void> {
    throw std::runtime_error("boom");
    co_return;
  });
  auto h = genericserver::filters::WithTimeout(std::move(thrower), 1s);
  CHECK_THROWS_WITH(testing::Serve(*h, Req("GET", "/api")), "boom");
}

TEST_CASE("recovery: exceptions become a 500 Status") {
  auto thrower = MakeHandler([](RequestContext&, ResponseWriter&) -> Awaitable<void> {
    throw std::runtime_error("boom");
    co_return;
  });
  auto h = genericserver::filters::WithPanicRecovery(std::move(thrower));
  auto r = testing::Serve(*h, Req("GET", "/api"));
  CHECK(r.status == 500);
  CHECK(r.Json()["reason"] == "InternalError");

  auto streamer = MakeHandler([](RequestContext&, ResponseWriter& out) -> Awaitable<void> {
    genericserver::Headers headers;
    co_await out.StartStream(200, headers);
    throw std::runtime_error("mid-stream");
  });
  auto h2 = genericserver::filters::WithPanicRecovery(std::move(streamer));
  // Too late for a Status: the connection is dropped instead (the listener closes it).
  CHECK_THROWS(testing::Serve(*h2, Req("GET", "/api")));
}

TEST_CASE("max in flight: 429 past the limit, system:masters and long-running exempt") {
  auto metrics = std::make_shared<genericserver::Metrics>();
  auto slow = MakeHandler([](RequestContext& ctx, ResponseWriter& out) -> Awaitable<void> {
    if (ctx.request.query.Has("slow")) co_await Sleep(50ms);
    co_await genericserver::WriteText(out, 200, "ok");
  });
  auto h = genericserver::filters::WithMaxInFlightLimit(std::move(slow), 1, 1, metrics);

  boost::asio::io_context io;
  testing::RecordingWriter blocker, refused, master, watch, mutating;
  RequestContext c1 = Req("GET", "/api/v1/pods?slow=1");
  RequestContext c2 = Req("GET", "/api/v1/pods");
  RequestContext c3 = Req("GET", "/api/v1/pods");
  c3.user = authn::UserInfo{"admin", "", {"system:masters"}, {}};
  RequestContext c4 = Req("GET", "/api/v1/pods?watch=1");
  RequestContext c5 = Req("POST", "/api/v1/namespaces");
  auto run = [&](RequestContext& c, testing::RecordingWriter& w) {
    boost::asio::co_spawn(
        io, [&]() -> Awaitable<void> { co_await h->Serve(c, w); }, boost::asio::detached);
  };
  run(c1, blocker);
  run(c2, refused);
  run(c3, master);
  run(c4, watch);
  run(c5, mutating);
  io.run();
  CHECK(blocker.Result().status == 200);
  CHECK(refused.Result().status == 429);
  CHECK(refused.Result().headers.Get("Retry-After") == "1");
  CHECK(refused.Result().Json()["reason"] == "TooManyRequests");
  CHECK(master.Result().status == 200);
  CHECK(watch.Result().status == 200);
  CHECK(mutating.Result().status == 200);  // counted apart from read-only
  // Every slot was given back.
  CHECK(metrics->Render().find("request_kind=\"readOnly\"} 0") != std::string::npos);
}

TEST_CASE("request log: Audit-Id, Cache-Control and metrics labels") {
  auto metrics = std::make_shared<genericserver::Metrics>();
  auto h = genericserver::filters::WithRequestLog(Ok(), metrics);
  auto r = testing::Serve(*h, Req("GET", "/api/v1/namespaces/ns/pods"));
  CHECK(r.headers.Get("Audit-Id").has_value());
  CHECK(r.headers.Get("Cache-Control") == "no-cache, private");
  RequestContext given = Req("POST", "/api/v1/namespaces?dryRun=All");
  given.request.headers.Add("Audit-ID", "fixed-id");
  CHECK(testing::Serve(*h, std::move(given)).headers.Get("Audit-Id") == "fixed-id");
  std::string text = metrics->Render();
  CHECK(text.find("apiserver_request_total{code=\"200\",component=\"apiserver\",dry_run=\"\","
                  "group=\"\",resource=\"pods\",scope=\"namespace\",subresource=\"\",verb=\"LIST\","
                  "version=\"v1\"} 1") != std::string::npos);
  CHECK(text.find("dry_run=\"All\"") != std::string::npos);
  CHECK(text.find("scope=\"resource\",subresource=\"\",verb=\"POST\"") != std::string::npos);
  CHECK(text.find("apiserver_request_duration_seconds_bucket{component=\"apiserver\"") !=
        std::string::npos);
}

TEST_CASE("request info: a malformed special-verb path is a 500") {
  auto h = genericserver::filters::WithRequestInfo(
      Ok(), std::make_shared<endpoints::RequestInfoResolver>());
  auto r = testing::Serve(*h, testing::MakeRequest("GET", "/api/v1/watch"));
  CHECK(r.status == 500);
  CHECK(r.Json()["message"].get<std::string>().find("failed to create RequestInfo") !=
        std::string::npos);
}
