// The shared informer (pkg/client/informer) against a fake API server over HTTPS: the
// paginated list, the watch from the list's resourceVersion with bookmarks, a new list after
// 410 Gone (as an ERROR event and as the watch's HTTP status), backoff on other errors, the
// cache and its indexes, resync, and the metadata-only Accept header.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "pkg/client/informer/shared_informer.h"
#include "pkg/client/rest/client.h"
#include "pkg/genericserver/server/handler.h"
#include "test/unit/client/test_server.h"

namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

constexpr char kEnd[] = "<end of stream>";

struct Recorded {
  std::string path;
  std::string accept;
  genericserver::QueryValues query;
  SteadyClock::time_point at;
};

// One answer to a list: its pages (linked by continue tokens "page-<n>") and the list's
// resourceVersion.
struct ListScript {
  std::vector<std::vector<json>> pages;
  std::string resource_version;
};

// Pods, as the API server serves them: lists from scripts (each new list takes the next
// script; the last one stays), watches streaming the lines queued in `events` (kEnd ends a
// stream) unless `watch_statuses` holds a status for that watch request.
class FakePods final : public genericserver::Handler {
 public:
  Awaitable<void> Serve(genericserver::RequestContext& ctx,
                        genericserver::ResponseWriter& out) override {
    const genericserver::Request& req = ctx.request;
    Recorded rec{req.path, std::string(req.headers.Get("Accept").value_or("")), req.query,
                 SteadyClock::now()};
    const bool watch =
        req.query.Get("watch").value_or("") == "1" || req.query.Get("watch").value_or("") == "true";
    if (!watch) {
      genericserver::Response r;
      r.headers.Set("Content-Type", "application/json");
      r.body = ListBody(rec);
      co_await out.Respond(std::move(r));
      co_return;
    }
    int status = 200;
    {
      std::lock_guard lock(mu);
      watches.push_back(rec);
      if (!watch_statuses.empty()) {
        status = watch_statuses.front();
        watch_statuses.pop_front();
      }
    }
    if (status != 200) {
      genericserver::Response r;
      r.status = status;
      r.headers.Set("Content-Type", "application/json");
      r.body = clienttest::StatusBody(status, status == 410 ? "Expired" : "InternalError",
                                      "injected by the test");
      co_await out.Respond(std::move(r));
      co_return;
    }
    genericserver::Headers headers;
    headers.Set("Content-Type", "application/json");
    const bool started = co_await out.StartStream(200, std::move(headers));
    if (!started) co_return;
    auto gone = std::make_shared<std::atomic<bool>>(false);
    out.OnClientGone([gone] { *gone = true; });
    {
      std::lock_guard lock(mu);
      ++open_watches;
    }
    asio::steady_timer timer(co_await asio::this_coro::executor);
    bool ended = false;
    while (!*gone) {
      std::optional<std::string> line;
      {
        std::lock_guard lock(mu);
        if (!events.empty()) {
          line = events.front();
          events.pop_front();
        }
      }
      if (!line) {  // nothing to send yet: look again shortly
        timer.expires_after(5ms);
        boost::system::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        continue;
      }
      if (*line == kEnd) {
        ended = true;
        break;
      }
      const std::string chunk = *line + "\n";
      const bool wrote = co_await out.WriteChunk(chunk);
      if (!wrote) break;
    }
    {
      std::lock_guard lock(mu);
      --open_watches;
    }
    if (ended) co_await out.FinishStream();
  }

  void Push(const std::string& line) {
    std::lock_guard lock(mu);
    events.push_back(line);
  }
  size_t Lists() {
    std::lock_guard lock(mu);
    return lists.size();
  }
  size_t Watches() {
    std::lock_guard lock(mu);
    return watches.size();
  }
  int OpenWatches() {
    std::lock_guard lock(mu);
    return open_watches;
  }
  Recorded List(size_t i) {
    std::lock_guard lock(mu);
    return lists.at(i);
  }
  Recorded Watch(size_t i) {
    std::lock_guard lock(mu);
    return watches.at(i);
  }

  std::mutex mu;  // guards what follows
  std::deque<ListScript> scripts;
  std::deque<int> watch_statuses;
  std::deque<std::string> events;
  std::vector<Recorded> lists, watches;
  int open_watches = 0;

 private:
  std::string ListBody(const Recorded& rec) {
    std::lock_guard lock(mu);
    lists.push_back(rec);
    const std::optional<std::string> token = rec.query.Get("continue");
    size_t page = 0;
    if (token && token->starts_with("page-")) {
      page = std::stoul(token->substr(5));
    } else if (listed_ && scripts.size() > 1) {
      scripts.pop_front();  // a new list after the first: the next script
    }
    if (!token) listed_ = true;
    const ListScript& script = scripts.front();
    json list = {{"kind", "PodList"},
                 {"apiVersion", "v1"},
                 {"metadata", {{"resourceVersion", script.resource_version}}},
                 {"items", page < script.pages.size() ? json(script.pages[page]) : json::array()}};
    if (page + 1 < script.pages.size()) {
      list["metadata"]["continue"] = "page-" + std::to_string(page + 1);
    }
    return list.dump();
  }
  bool listed_ = false;  // guarded by mu
};

json Pod(const std::string& ns, const std::string& name, const std::string& rv,
         const std::string& app = "") {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"namespace", ns}, {"name", name}, {"resourceVersion", rv}}}};
  if (!app.empty()) pod["metadata"]["labels"] = {{"app", app}};
  return pod;
}

std::string Event(const std::string& type, const json& object) {
  return json{{"type", type}, {"object", object}}.dump();
}

std::string RV(const client::ObjectPtr& o) {
  return o ? (*o)["metadata"].value("resourceVersion", "") : "<null>";
}

// What the handlers were told, in order (all on the test thread: it runs the io_context).
struct Seen {
  std::vector<client::ObjectPtr> adds, deletes;
  std::vector<std::pair<client::ObjectPtr, client::ObjectPtr>> updates;
  client::ResourceEventHandler Handler() {
    client::ResourceEventHandler h;
    h.on_add = [this](const client::ObjectPtr& o) { adds.push_back(o); };
    h.on_update = [this](const client::ObjectPtr& old_object, const client::ObjectPtr& o) {
      updates.emplace_back(old_object, o);
    };
    h.on_delete = [this](const client::ObjectPtr& o) { deletes.push_back(o); };
    return h;
  }
};

std::vector<std::string> Keys(const std::vector<client::ObjectPtr>& objects) {
  std::vector<std::string> keys;
  for (const auto& o : objects) keys.push_back(client::KeyOf(*o));
  std::sort(keys.begin(), keys.end());
  return keys;
}

const client::GroupVersionResource kPods{"", "v1", "pods"};

std::shared_ptr<client::RestClient> NewClient(const clienttest::TestApiServer& server,
                                              asio::io_context& io) {
  auto c = client::RestClient::New(server.Config(), "informer-test", io.get_executor());
  REQUIRE(c);
  return *c;
}

}  // namespace

TEST_CASE("informer: a paginated list, then watch events reach the handlers and the cache",
          "[client][informer]") {
  FakePods pods;
  pods.scripts.push_back(
      {{{Pod("ns1", "a", "5", "web")}, {Pod("ns2", "b", "7"), Pod("ns1", "c", "8", "web")}}, "10"});
  clienttest::TestApiServer server(pods);
  Seen seen;
  asio::io_context io;
  client::InformerOptions options;
  options.page_size = 2;
  auto informer =
      client::SharedInformer::New(NewClient(server, io), kPods, options, io.get_executor());
  informer->AddIndexer("app", [](const json& o) {
    std::vector<std::string> values;
    const json& labels = o["metadata"].value("labels", json::object());
    if (labels.contains("app")) values.push_back(labels["app"].get<std::string>());
    return values;
  });
  informer->AddEventHandler(seen.Handler());
  CHECK_FALSE(informer->HasSynced());
  informer->Start();

  REQUIRE(clienttest::PollUntil(
      io, [&] { return informer->HasSynced() && pods.OpenWatches() == 1; }, 10s));
  // Both pages were asked for, the second with the first's continue token.
  REQUIRE(pods.Lists() == 2);
  CHECK(pods.List(0).path == "/api/v1/pods");
  CHECK(pods.List(0).query.Get("limit") == "2");
  CHECK_FALSE(pods.List(0).query.Has("continue"));
  CHECK(pods.List(1).query.Get("continue") == "page-1");
  CHECK(pods.List(0).accept.find("as=") == std::string::npos);
  CHECK(Keys(seen.adds) == std::vector<std::string>{"ns1/a", "ns1/c", "ns2/b"});
  // The watch starts from the list's resourceVersion, with bookmarks.
  const Recorded watch = pods.Watch(0);
  CHECK(watch.path == "/api/v1/pods");
  CHECK(watch.query.Get("watch") == "1");
  CHECK(watch.query.Get("resourceVersion") == "10");
  CHECK(watch.query.Get("allowWatchBookmarks") == "true");
  CHECK(Keys(informer->ByIndex("app", "web")) == std::vector<std::string>{"ns1/a", "ns1/c"});

  pods.Push(Event("ADDED", Pod("ns2", "d", "11")));
  pods.Push(Event("MODIFIED", Pod("ns1", "a", "12", "db")));
  pods.Push(Event("DELETED", Pod("ns2", "b", "13")));
  REQUIRE(clienttest::PollUntil(
      io, [&] { return seen.deletes.size() == 1; }, 10s));

  REQUIRE(seen.adds.size() == 4);
  CHECK(client::KeyOf(*seen.adds[3]) == "ns2/d");
  REQUIRE(seen.updates.size() == 1);
  CHECK(client::KeyOf(*seen.updates[0].second) == "ns1/a");
  CHECK(RV(seen.updates[0].first) == "5");
  CHECK(RV(seen.updates[0].second) == "12");
  CHECK(client::KeyOf(*seen.deletes[0]) == "ns2/b");
  // The cache.
  CHECK(RV(informer->Get("ns1/a")) == "12");
  CHECK(informer->Get("ns2/b") == nullptr);
  CHECK(RV(informer->Get("ns2/d")) == "11");
  CHECK(Keys(informer->List()) == std::vector<std::string>{"ns1/a", "ns1/c", "ns2/d"});
  CHECK(Keys(informer->ByIndex(client::kNamespaceIndex, "ns1")) ==
        std::vector<std::string>{"ns1/a", "ns1/c"});
  CHECK(Keys(informer->ByIndex(client::kNamespaceIndex, "ns2")) ==
        std::vector<std::string>{"ns2/d"});
  // a's label changed: it left the "web" index for "db".
  CHECK(Keys(informer->ByIndex("app", "web")) == std::vector<std::string>{"ns1/c"});
  CHECK(Keys(informer->ByIndex("app", "db")) == std::vector<std::string>{"ns1/a"});
  CHECK(pods.Lists() == 2);
  CHECK(pods.Watches() == 1);
  informer->Stop();
}

TEST_CASE("informer: a bookmark advances the resourceVersion of the next watch",
          "[client][informer]") {
  FakePods pods;
  pods.scripts.push_back({{{Pod("ns1", "a", "5")}}, "10"});
  clienttest::TestApiServer server(pods);
  Seen seen;
  asio::io_context io;
  auto informer = client::SharedInformer::New(NewClient(server, io), kPods, {}, io.get_executor());
  informer->AddEventHandler(seen.Handler());
  informer->Start();
  REQUIRE(clienttest::PollUntil(
      io, [&] { return pods.OpenWatches() == 1; }, 10s));

  json bookmark = {
      {"kind", "Pod"}, {"apiVersion", "v1"}, {"metadata", {{"resourceVersion", "20"}}}};
  pods.Push(Event("BOOKMARK", bookmark));
  pods.Push(kEnd);
  REQUIRE(clienttest::PollUntil(
      io, [&] { return pods.OpenWatches() == 1 && pods.Watches() == 2; }, 10s));
  CHECK(pods.Watch(0).query.Get("resourceVersion") == "10");
  CHECK(pods.Watch(1).query.Get("resourceVersion") == "20");
  CHECK(pods.Watch(1).query.Get("allowWatchBookmarks") == "true");
  // A bookmark is no change: the handlers heard nothing, the cache holds what it held.
  CHECK(seen.adds.size() == 1);
  CHECK(seen.updates.empty());
  CHECK(seen.deletes.empty());
  CHECK(Keys(informer->List()) == std::vector<std::string>{"ns1/a"});

  // An event's resourceVersion counts as well.
  pods.Push(Event("ADDED", Pod("ns1", "b", "25")));
  pods.Push(kEnd);
  REQUIRE(clienttest::PollUntil(
      io, [&] { return pods.Watches() == 3; }, 10s));
  CHECK(pods.Watch(2).query.Get("resourceVersion") == "25");
  // A watch that ended is opened again without a new list.
  CHECK(pods.Lists() == 1);
  informer->Stop();
}

TEST_CASE("informer: 410 Gone on the watch lists again; what the new list lacks is deleted",
          "[client][informer]") {
  FakePods pods;
  pods.scripts.push_back({{{Pod("ns1", "a", "5"), Pod("ns1", "b", "6")}}, "10"});
  // The second list: a unchanged, b gone, c new.
  pods.scripts.push_back({{{Pod("ns1", "a", "5"), Pod("ns1", "c", "28")}}, "30"});
  bool as_event = false;
  SECTION("as a watch ERROR event with code 410") { as_event = true; }
  SECTION("as the watch request's HTTP status") { pods.watch_statuses.push_back(410); }
  clienttest::TestApiServer server(pods);
  Seen seen;
  asio::io_context io;
  auto informer = client::SharedInformer::New(NewClient(server, io), kPods, {}, io.get_executor());
  informer->AddEventHandler(seen.Handler());
  informer->Start();
  if (as_event) {
    REQUIRE(clienttest::PollUntil(
        io, [&] { return pods.OpenWatches() == 1; }, 10s));
    json gone = {{"kind", "Status"},    {"apiVersion", "v1"},
                 {"status", "Failure"}, {"reason", "Expired"},
                 {"code", 410},         {"message", "too old resource version: 10 (30)"}};
    pods.Push(Event("ERROR", gone));
    pods.Push(kEnd);
  }
  REQUIRE(clienttest::PollUntil(
      io, [&] { return pods.Watches() == 2 && pods.Lists() == 2; }, 10s));
  CHECK(pods.Watch(0).query.Get("resourceVersion") == "10");
  CHECK(pods.Watch(1).query.Get("resourceVersion") == "30");
  // Gone is no error: the new list comes at once, not after the 800 ms backoff of errors.
  CHECK(pods.List(1).at - pods.Watch(0).at < 600ms);
  REQUIRE(seen.deletes.size() == 1);
  CHECK(client::KeyOf(*seen.deletes[0]) == "ns1/b");
  CHECK(RV(seen.deletes[0]) == "6");
  CHECK(Keys(seen.adds) == std::vector<std::string>{"ns1/a", "ns1/b", "ns1/c"});
  CHECK(seen.updates.empty());  // a's resourceVersion did not change
  CHECK(informer->Get("ns1/b") == nullptr);
  CHECK(Keys(informer->List()) == std::vector<std::string>{"ns1/a", "ns1/c"});
  CHECK(Keys(informer->ByIndex(client::kNamespaceIndex, "ns1")) ==
        std::vector<std::string>{"ns1/a", "ns1/c"});
  informer->Stop();
}

TEST_CASE("informer: another watch error lists again after a backoff", "[client][informer]") {
  FakePods pods;
  pods.scripts.push_back({{{Pod("ns1", "a", "5")}}, "10"});
  pods.watch_statuses.push_back(500);
  clienttest::TestApiServer server(pods);
  asio::io_context io;
  auto informer = client::SharedInformer::New(NewClient(server, io), kPods, {}, io.get_executor());
  informer->Start();
  REQUIRE(clienttest::PollUntil(
      io, [&] { return pods.Lists() == 2 && pods.OpenWatches() == 1; }, 10s));
  // client-go's reflector backoff starts at 800 ms.
  CHECK(pods.List(1).at - pods.Watch(0).at >= 750ms);
  CHECK(pods.List(1).at - pods.Watch(0).at < 5s);
  informer->Stop();
}

TEST_CASE("informer: resync replays every cached object as on_update(o, o)", "[client][informer]") {
  FakePods pods;
  pods.scripts.push_back({{{Pod("ns1", "a", "5"), Pod("ns2", "b", "6")}}, "10"});
  clienttest::TestApiServer server(pods);
  Seen seen;
  asio::io_context io;
  client::InformerOptions options;
  options.resync = 100ms;
  auto informer =
      client::SharedInformer::New(NewClient(server, io), kPods, options, io.get_executor());
  informer->AddEventHandler(seen.Handler());
  informer->Start();
  // Two rounds of resync.
  REQUIRE(clienttest::PollUntil(
      io, [&] { return seen.updates.size() >= 4; }, 10s));
  std::vector<client::ObjectPtr> replayed;
  for (const auto& [old_object, object] : seen.updates) {
    CHECK(old_object == object);  // the very object cached, as old and new
    CHECK(informer->Get(client::KeyOf(*object)) == object);
    replayed.push_back(object);
  }
  CHECK(Keys({replayed.begin(), replayed.begin() + 2}) ==
        std::vector<std::string>{"ns1/a", "ns2/b"});
  CHECK(Keys({replayed.begin() + 2, replayed.begin() + 4}) ==
        std::vector<std::string>{"ns1/a", "ns2/b"});
  CHECK(seen.adds.size() == 2);
  CHECK(seen.deletes.empty());
  // A resync comes from the cache, not from the server.
  CHECK(pods.Lists() == 1);
  informer->Stop();
}

TEST_CASE("informer: a metadata-only informer asks for PartialObjectMetadata",
          "[client][informer]") {
  FakePods pods;
  pods.scripts.push_back({{{Pod("ns1", "a", "5")}}, "10"});
  clienttest::TestApiServer server(pods);
  asio::io_context io;
  client::InformerOptions options;
  options.metadata_only = true;
  options.namespace_name = "ns1";
  options.label_selector = "app=web";
  auto informer =
      client::SharedInformer::New(NewClient(server, io), kPods, options, io.get_executor());
  informer->Start();
  REQUIRE(clienttest::PollUntil(
      io, [&] { return pods.OpenWatches() == 1; }, 10s));
  const Recorded list = pods.List(0);
  CHECK(list.path == "/api/v1/namespaces/ns1/pods");
  CHECK(list.query.Get("labelSelector") == "app=web");
  CHECK(list.accept.find("as=PartialObjectMetadataList;g=meta.k8s.io;v=v1") != std::string::npos);
  const Recorded watch = pods.Watch(0);
  CHECK(watch.path == "/api/v1/namespaces/ns1/pods");
  CHECK(watch.query.Get("labelSelector") == "app=web");
  CHECK(watch.accept.find("as=PartialObjectMetadata;g=meta.k8s.io;v=v1") != std::string::npos);
  CHECK(informer->HasSynced());
  CHECK(informer->Get("ns1/a") != nullptr);
  informer->Stop();
}
