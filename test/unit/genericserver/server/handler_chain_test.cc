// The order of the filters, observed from outside: each case can only pass if one
// filter runs before another.
#include <catch2/catch.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "pkg/genericserver/authn/token_file.h"
#include "pkg/genericserver/authn/union.h"
#include "pkg/genericserver/server/handler_chain.h"
#include "pkg/genericserver/server/responses.h"
#include "test/unit/support/handler_harness.h"

namespace {

using namespace std::chrono_literals;
using genericserver::RequestContext;
using genericserver::ResponseWriter;

class Inner final : public genericserver::Handler {
 public:
  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override {
    ++calls;
    if (ctx.request.query.Has("throw")) throw std::runtime_error("boom");
    if (ctx.request.query.Has("slow")) {
      boost::asio::steady_timer t(co_await boost::asio::this_coro::executor, 50ms);
      co_await t.async_wait(boost::asio::use_awaitable);
    }
    // A named local, not a ?: temporary inside co_await: g++ 12 miscompiles the latter.
    std::string who = ctx.user ? ctx.user->name : "nobody";
    co_await genericserver::WriteText(out, 200, std::move(who));
  }
  int calls = 0;
};

genericserver::CompletedConfig TestConfig(std::vector<std::string> modes, int read_only_limit) {
  genericserver::Config c;
  auto tokens = *authn::TokenFileAuthenticator::Parse(
      "admintoken,admin,1,system:masters\nusertoken,alice,2\n", "tokens");
  c.authenticator = authn::NewUnionAuthenticator({tokens}, /*anonymous=*/false);
  c.authorizer = authz::NewFromModes(modes);
  c.max_requests_in_flight = read_only_limit;
  c.request_timeout = 5s;
  return c.Complete();
}

RequestContext As(const std::string& token, std::string method, std::string target) {
  RequestContext ctx = testing::MakeRequest(std::move(method), std::move(target));
  if (!token.empty()) ctx.request.headers.Add("Authorization", "Bearer " + token);
  return ctx;
}

}  // namespace

TEST_CASE("chain: authentication runs before the in-flight limit") {
  auto config = TestConfig({"AlwaysAllow"}, 1);
  Inner inner;
  auto chain = genericserver::BuildHandlerChain(inner, config);
  boost::asio::io_context io;
  testing::RecordingWriter slow, anonymous, user, admin;
  RequestContext c1 = As("usertoken", "GET", "/api/v1/pods?slow=1");
  RequestContext c2 = As("", "GET", "/api/v1/pods");
  RequestContext c3 = As("usertoken", "GET", "/api/v1/pods");
  RequestContext c4 = As("admintoken", "GET", "/api/v1/pods");
  for (auto [c, w] : {std::pair{&c1, &slow}, {&c2, &anonymous}, {&c3, &user}, {&c4, &admin}}) {
    boost::asio::co_spawn(
        io, [&chain, c, w]() -> Awaitable<void> { co_await chain->Serve(*c, *w); },
        boost::asio::detached);
  }
  io.run();
  CHECK(slow.Result().status == 200);
  CHECK(anonymous.Result().status == 401);  // not 429: who you are is asked first
  CHECK(user.Result().status == 429);
  CHECK(admin.Result().status == 200);  // system:masters is never refused
}

TEST_CASE("chain: the request deadline is checked before authentication") {
  auto config = TestConfig({"AlwaysAllow"}, 0);
  Inner inner;
  auto chain = genericserver::BuildHandlerChain(inner, config);
  CHECK(testing::Serve(*chain, As("", "GET", "/api?timeout=bogus")).status == 400);
  CHECK(testing::Serve(*chain, As("", "GET", "/api")).status == 401);
  CHECK(inner.calls == 0);
}

TEST_CASE("chain: authorization sees the user and the RequestInfo") {
  auto config = TestConfig({"AlwaysDeny"}, 0);
  Inner inner;
  auto chain = genericserver::BuildHandlerChain(inner, config);
  auto denied = testing::Serve(*chain, As("usertoken", "GET", "/api/v1/namespaces/ns/pods"));
  CHECK(denied.status == 403);
  CHECK(denied.Json()["message"] ==
        "pods is forbidden: User \"alice\" cannot list resource \"pods\" in API group \"\" in "
        "the namespace \"ns\": Everything is forbidden.");
  auto allowed = testing::Serve(*chain, As("admintoken", "GET", "/api/v1/namespaces/ns/pods"));
  CHECK(allowed.status == 200);
  CHECK(allowed.body == "admin");
  CHECK(inner.calls == 1);
}

TEST_CASE("chain: recovery is outside the request log, which counts the 500") {
  auto config = TestConfig({"AlwaysAllow"}, 0);
  Inner inner;
  auto chain = genericserver::BuildHandlerChain(inner, config);
  auto r = testing::Serve(*chain, As("usertoken", "GET", "/api/v1/pods?throw=1"));
  CHECK(r.status == 500);
  CHECK(r.headers.Get("Audit-Id").has_value());
  std::string metrics = config.Get().metrics->Render();
  CHECK(metrics.find("apiserver_request_total{code=\"500\"") != std::string::npos);
}

TEST_CASE("chain: rejected requests are counted and carry the common headers") {
  auto config = TestConfig({"AlwaysAllow"}, 0);
  Inner inner;
  auto chain = genericserver::BuildHandlerChain(inner, config);
  auto r = testing::Serve(*chain, As("wrong", "GET", "/api"));
  CHECK(r.status == 401);
  CHECK(r.Json()["message"] == "Unauthorized");
  CHECK(r.headers.Get("Cache-Control") == "no-cache, private");
  CHECK(config.Get().metrics->Render().find("code=\"401\"") != std::string::npos);
}
