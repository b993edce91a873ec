#include <catch2/catch.hpp>

#include "pkg/genericserver/server/healthz.h"
#include "test/unit/support/handler_harness.h"

namespace {
genericserver::HealthCheck Check(std::string name, bool ok) {
  return {std::move(name), [ok]() -> std::expected<void, std::string> {
            if (ok) return {};
            return std::unexpected("broken");
          }};
}
}  // namespace

TEST_CASE("health: ok, verbose, exclude and single checks") {
  auto h = genericserver::NewHealthHandler("readyz", {Check("ping", true), Check("etcd", true)});
  auto plain = testing::Serve(*h, testing::MakeRequest("GET", "/readyz"));
  CHECK(plain.status == 200);
  CHECK(plain.body == "ok");
  CHECK(plain.headers.Get("Content-Type") == "text/plain; charset=utf-8");
  auto verbose = testing::Serve(*h, testing::MakeRequest("GET", "/readyz?verbose"));
  CHECK(verbose.body == "[+]ping ok\n[+]etcd ok\nreadyz check passed\n");
  auto excluded =
      testing::Serve(*h, testing::MakeRequest("GET", "/readyz?verbose&exclude=etcd&exclude=nope"));
  CHECK(excluded.body ==
        "[+]ping ok\n[+]etcd excluded: ok\nwarn: some health checks cannot be excluded: no "
        "matches for \"nope\"\nreadyz check passed\n");
  CHECK(testing::Serve(*h, testing::MakeRequest("GET", "/readyz/etcd")).body == "ok");
  CHECK(testing::Serve(*h, testing::MakeRequest("GET", "/readyz/nope")).status == 404);
}

TEST_CASE("health: a failing check fails the endpoint with the verbose list") {
  auto h = genericserver::NewHealthHandler("livez", {Check("ping", true), Check("etcd", false)});
  auto r = testing::Serve(*h, testing::MakeRequest("GET", "/livez"));
  CHECK(r.status == 500);
  CHECK(r.body == "[+]ping ok\n[-]etcd failed: reason withheld\nlivez check failed\n");
  auto one = testing::Serve(*h, testing::MakeRequest("GET", "/livez/etcd"));
  CHECK(one.status == 500);
  CHECK(one.body == "internal server error: broken\n");
  CHECK(testing::Serve(*h, testing::MakeRequest("GET", "/livez?exclude=etcd")).status == 200);
}
