// The event recorder (pkg/client/record) against a fake API server over HTTPS: one Event per
// (object, type, reason, message) with upstream's fields, a repeat patched into its count
// (even when recorded back to back), other messages as new Events, and the spam filter's
// burst of 25 per object.
#include <catch2/catch.hpp>

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "pkg/client/record/event_recorder.h"
#include "pkg/client/rest/client.h"
#include "pkg/genericserver/server/handler.h"
#include "test/unit/client/test_server.h"

namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using nlohmann::json;

struct Write {
  std::string method, path, content_type;
  json body;
};

// Events: creates answer 201 with the body, patches 200.
class FakeEvents final : public genericserver::Handler {
 public:
  Awaitable<void> Serve(genericserver::RequestContext& ctx,
                        genericserver::ResponseWriter& out) override {
    const genericserver::Request& req = ctx.request;
    {
      std::lock_guard lock(mu_);
      writes_.push_back({req.method, req.path,
                         std::string(req.headers.Get("Content-Type").value_or("")),
                         json::parse(req.body, nullptr, false)});
    }
    genericserver::Response r;
    r.status = req.method == "POST" ? 201 : 200;
    r.headers.Set("Content-Type", "application/json");
    r.body = req.body;
    co_await out.Respond(std::move(r));
  }
  std::vector<Write> Writes() {
    std::lock_guard lock(mu_);
    return writes_;
  }
  size_t Count() {
    std::lock_guard lock(mu_);
    return writes_.size();
  }

 private:
  std::mutex mu_;
  std::vector<Write> writes_;
};

client::ObjectReference Pod(const std::string& name) {
  return client::ReferenceTo(json{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"namespace", "ns1"}, {"name", name}, {"uid", "uid-" + name}, {"resourceVersion", "7"}}}});
}

std::shared_ptr<client::EventRecorder> NewRecorder(const clienttest::TestApiServer& server,
                                                   asio::io_context& io) {
  auto c = client::RestClient::New(server.Config(), "event-test", io.get_executor());
  REQUIRE(c);
  return client::EventRecorder::New(*c, "test-controller", "host-1", io.get_executor());
}

}  // namespace

TEST_CASE("event recorder: an Event with upstream's fields, a repeat raises its count",
          "[client][events]") {
  FakeEvents events;
  clienttest::TestApiServer server(events);
  asio::io_context io;
  auto recorder = NewRecorder(server, io);
  // Recorded back to back: still one Event, then a patch of its count.
  recorder->Event(Pod("web"), client::kEventWarning, "FailedThing", "it failed");
  recorder->Event(Pod("web"), client::kEventWarning, "FailedThing", "it failed");
  REQUIRE(clienttest::PollUntil(
      io, [&] { return events.Count() == 2; }, 10s));

  std::vector<Write> w = events.Writes();
  CHECK(w[0].method == "POST");
  CHECK(w[0].path == "/api/v1/namespaces/ns1/events");
  const json& e = w[0].body;
  const std::string name = e["metadata"]["name"];
  CHECK(name.starts_with("web."));
  CHECK(e["metadata"]["namespace"] == "ns1");
  CHECK(e["involvedObject"] == json{{"kind", "Pod"},
                                    {"apiVersion", "v1"},
                                    {"namespace", "ns1"},
                                    {"name", "web"},
                                    {"uid", "uid-web"},
                                    {"resourceVersion", "7"}});
  CHECK(e["type"] == "Warning");
  CHECK(e["reason"] == "FailedThing");
  CHECK(e["message"] == "it failed");
  CHECK(e["count"] == 1);
  CHECK(e["source"] == json{{"component", "test-controller"}, {"host", "host-1"}});
  CHECK(e["reportingComponent"] == "test-controller");
  CHECK(e["firstTimestamp"] == e["lastTimestamp"]);

  CHECK(w[1].method == "PATCH");
  CHECK(w[1].path == "/api/v1/namespaces/ns1/events/" + name);
  CHECK(w[1].content_type == "application/strategic-merge-patch+json");
  CHECK(w[1].body["count"] == 2);
  CHECK(w[1].body.contains("lastTimestamp"));

  // Another message is another Event.
  recorder->Event(Pod("web"), client::kEventWarning, "FailedThing", "it failed again");
  REQUIRE(clienttest::PollUntil(
      io, [&] { return events.Count() == 3; }, 10s));
  CHECK(events.Writes()[2].method == "POST");
}

TEST_CASE("event recorder: the spam filter keeps 25 events of one object", "[client][events]") {
  FakeEvents events;
  clienttest::TestApiServer server(events);
  asio::io_context io;
  auto recorder = NewRecorder(server, io);
  for (int i = 0; i < 40; ++i) {
    recorder->Event(Pod("noisy"), client::kEventNormal, "Tick", "tick " + std::to_string(i));
  }
  recorder->Event(Pod("quiet"), client::kEventNormal, "Tick", "once");
  REQUIRE(clienttest::PollUntil(
      io, [&] { return events.Count() >= 26; }, 10s));
  // Nothing more arrives: the other 15 of the noisy pod were dropped.
  clienttest::PollUntil(
      io, [] { return false; }, 300ms);
  std::vector<Write> w = events.Writes();
  REQUIRE(w.size() == 26);
  int noisy = 0, quiet = 0;
  for (const Write& write : w) {
    CHECK(write.method == "POST");
    (write.body["involvedObject"]["name"] == "noisy" ? noisy : quiet)++;
  }
  CHECK(noisy == 25);
  CHECK(quiet == 1);
  // In the order recorded.
  CHECK(w[0].body["message"] == "tick 0");
  CHECK(w[24].body["message"] == "tick 24");
}
