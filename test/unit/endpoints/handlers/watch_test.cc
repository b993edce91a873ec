// WATCH through the core/v1 handler: initial events, changes, bookmarks, tables, 410.
#include <utility>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>

#include "pkg/genericserver/registry/store.h"
#include "test/unit/endpoints/handlers/fixture.h"

using nlohmann::json;
using testing::CoreAPI;

namespace {
constexpr char kCMs[] = "/api/v1/namespaces/default/configmaps";

std::vector<json> Events(const std::string& body) {
  std::vector<json> events;
  size_t start = 0;
  while (start < body.size()) {
    size_t end = body.find('\n', start);
    if (end == std::string::npos) end = body.size();
    events.push_back(json::parse(body.substr(start, end - start)));
    start = end + 1;
  }
  return events;
}

// Writes made while the watch runs: a create, an update and a delete.
std::function<Awaitable<void>()> Changes(CoreAPI& api) {
  return [&api]() -> Awaitable<void> {
    // Let the watch start first: both run on one loop and this was spawned first.
    boost::asio::steady_timer delay(co_await boost::asio::this_coro::executor,
                                    std::chrono::milliseconds(100));
    co_await delay.async_wait(boost::asio::use_awaitable);
    registry::Store& store = api.Store("configmaps");
    json object = {{"metadata", {{"name", "w1"}}}, {"data", {{"a", "1"}}}};
    registry::WriteOptions write;
    co_await store.Create("default", std::move(object), write);
    registry::UpdateFunc update = [](const json* old) -> Awaitable<registry::Result<json>> {
      json next = *old;
      next["data"]["a"] = "2";
      co_return next;
    };
    co_await store.Update("default", "w1", update, write, nullptr);
    registry::DeleteOptions remove;
    co_await store.Delete("default", "w1", remove);
  };
}
}  // namespace

TEST_CASE("watch from now: the changes, in order, then the end at timeoutSeconds", "[handlers]") {
  CoreAPI api;
  api.CreateConfigMap("before");
  auto list = api.Do("GET", kCMs).Json();
  const std::string rv = list["metadata"]["resourceVersion"];
  auto r =
      api.DoWhile("GET", std::string(kCMs) + "?watch=true&timeoutSeconds=1&resourceVersion=" + rv,
                  Changes(api));
  REQUIRE(r.status == 200);
  CHECK(r.streamed);
  CHECK(r.finished);
  auto events = Events(r.body);
  REQUIRE(events.size() == 3);
  CHECK(events[0]["type"] == "ADDED");
  CHECK(events[1]["type"] == "MODIFIED");
  CHECK(events[1]["object"]["data"]["a"] == "2");
  CHECK(events[2]["type"] == "DELETED");
  CHECK(events[0]["object"]["metadata"]["name"] == "w1");
}

TEST_CASE("watch with resourceVersion 0: synthetic ADDED for what exists first", "[handlers]") {
  CoreAPI api;
  api.CreateConfigMap("before");
  auto r = api.DoWhile("GET", std::string(kCMs) + "?watch=true&timeoutSeconds=1&resourceVersion=0",
                       Changes(api));
  auto events = Events(r.body);
  REQUIRE(events.size() == 4);
  CHECK(events[0]["type"] == "ADDED");
  CHECK(events[0]["object"]["metadata"]["name"] == "before");
}

TEST_CASE("watch of one object by name and by field selector", "[handlers]") {
  CoreAPI api;
  api.CreateConfigMap("other");
  auto r = api.DoWhile(
      "GET", std::string(kCMs) + "?watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dw1",
      Changes(api));
  auto events = Events(r.body);
  REQUIRE(events.size() == 3);
  for (const auto& e : events) CHECK(e["object"]["metadata"]["name"] == "w1");
}

TEST_CASE("watch as Table: column definitions on the first event only", "[handlers]") {
  CoreAPI api;
  auto list = api.Do("GET", kCMs).Json();
  auto r = api.DoWhile("GET",
                       std::string(kCMs) + "?watch=true&timeoutSeconds=1&resourceVersion=" +
                           list["metadata"]["resourceVersion"].get<std::string>(),
                       Changes(api),
                       {"Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json"});
  auto events = Events(r.body);
  REQUIRE(events.size() == 3);
  CHECK(events[0]["object"]["kind"] == "Table");
  CHECK(events[0]["object"]["columnDefinitions"].size() == 3);
  CHECK(events[1]["object"]["columnDefinitions"].is_null());
  CHECK(events[2]["object"]["rows"][0]["cells"][0] == "w1");
}

TEST_CASE("watch: sendInitialEvents ends the initial state with a bookmark", "[handlers]") {
  CoreAPI api;
  api.CreateConfigMap("before");
  auto r = api.Do("GET",
                  std::string(kCMs) +
                      "?watch=true&timeoutSeconds=1&sendInitialEvents=true&allowWatchBookmarks=true"
                      "&resourceVersionMatch=NotOlderThan");
  auto events = Events(r.body);
  REQUIRE(events.size() >= 2);
  CHECK(events[0]["type"] == "ADDED");
  CHECK(events[1]["type"] == "BOOKMARK");
  CHECK(events[1]["object"]["kind"] == "ConfigMap");
  CHECK(events[1]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"] == "true");

  auto without_bookmarks = api.Do(
      "GET",
      std::string(kCMs) +
          "?watch=true&timeoutSeconds=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan");
  CHECK(without_bookmarks.status == 200);
  CHECK(Events(without_bookmarks.body).size() == 1);  // the ADDED, no bookmark

  auto no_match = api.Do("GET", std::string(kCMs) + "?watch=true&sendInitialEvents=true");
  CHECK(no_match.status == 422);
  CHECK(
      no_match.Json()["message"] ==
      "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents "
      "requires setting resourceVersionMatch to NotOlderThan");

  auto skip = api.Do("GET", std::string(kCMs) +
                                "?watch=true&timeoutSeconds=1&sendInitialEvents=false"
                                "&resourceVersionMatch=NotOlderThan");
  CHECK(skip.status == 200);
  CHECK(skip.body.empty());
}

TEST_CASE("watch: timeoutSeconds must be a number", "[handlers]") {
  CoreAPI api;
  auto bad = api.Do("GET", std::string(kCMs) + "?watch=true&timeoutSeconds=soon");
  CHECK(bad.status == 400);
  CHECK(bad.Json()["reason"] == "BadRequest");
}
