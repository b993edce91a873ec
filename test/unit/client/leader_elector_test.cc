// Leader election (pkg/client/leaderelection) against a fake coordination.k8s.io/v1 Lease
// endpoint over HTTPS that honours resourceVersion (409 on a stale write): one of two
// electors leads and renews; a leader whose renewals fail stops within the renew deadline
// and the other takes over with leaseTransitions incremented; client-go's config checks.
#include <catch2/catch.hpp>

#include <chrono>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "pkg/client/leaderelection/leader_elector.h"
#include "pkg/client/rest/client.h"
#include "pkg/genericserver/server/handler.h"
#include "test/unit/client/test_server.h"

namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

constexpr char kCollection[] = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
constexpr char kLeaseName[] = "kube-controller-manager";

// The Lease kube-system/kube-controller-manager. PUTs naming a holder in fail_puts_for are
// answered 500.
class FakeLeases final : public genericserver::Handler {
 public:
  Awaitable<void> Serve(genericserver::RequestContext& ctx,
                        genericserver::ResponseWriter& out) override {
    genericserver::Response r = Answer(ctx.request);
    r.headers.Set("Content-Type", "application/json");
    co_await out.Respond(std::move(r));
  }

  std::optional<json> Lease() {
    std::lock_guard lock(mu);
    return lease;
  }
  void FailPutsFor(const std::string& identity) {
    std::lock_guard lock(mu);
    fail_puts_for.insert(identity);
  }

  std::mutex mu;  // guards what follows
  std::optional<json> lease;
  int64_t resource_version = 100;
  std::set<std::string> fail_puts_for;
  int creates = 0, conflicts = 0, failed_puts = 0;

 private:
  static genericserver::Response Error(int code, const std::string& reason,
                                       const std::string& message) {
    genericserver::Response r;
    r.status = code;
    r.body = clienttest::StatusBody(code, reason, message);
    return r;
  }
  static genericserver::Response Ok(int code, const json& body) {
    genericserver::Response r;
    r.status = code;
    r.body = body.dump();
    return r;
  }

  genericserver::Response Answer(const genericserver::Request& req) {
    std::lock_guard lock(mu);
    const std::string object_path = std::string(kCollection) + "/" + kLeaseName;
    if (req.method == "GET" && req.path == object_path) {
      if (!lease)
        return Error(404, "NotFound", "leases \"" + std::string(kLeaseName) + "\" not found");
      return Ok(200, *lease);
    }
    json body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) return Error(400, "BadRequest", "not JSON");
    if (req.method == "POST" && req.path == kCollection) {
      if (lease) return Error(409, "AlreadyExists", "leases already exists");
      if (body["metadata"].value("name", "") != kLeaseName) return Error(422, "Invalid", "name");
      body["metadata"]["resourceVersion"] = std::to_string(++resource_version);
      body["metadata"]["uid"] = "lease-uid";
      lease = body;
      ++creates;
      return Ok(201, *lease);
    }
    if (req.method == "PUT" && req.path == object_path) {
      const std::string holder = body["spec"].value("holderIdentity", "");
      if (fail_puts_for.contains(holder)) {
        ++failed_puts;
        return Error(500, "InternalError", "injected by the test");
      }
      if (!lease) return Error(404, "NotFound", "not found");
      if (body["metadata"].value("resourceVersion", "") !=
          (*lease)["metadata"].value("resourceVersion", "")) {
        ++conflicts;
        return Error(409, "Conflict",
                     "Operation cannot be fulfilled on leases.coordination.k8s.io: the object "
                     "has been modified; please apply your changes to the latest version and "
                     "try again");
      }
      body["metadata"]["resourceVersion"] = std::to_string(++resource_version);
      lease = body;
      return Ok(200, *lease);
    }
    return Error(404, "NotFound", "no such path: " + req.method + " " + req.path);
  }
};

// What one elector's callbacks saw (on the test thread, which runs the io_context).
struct Candidate {
  explicit Candidate(std::string id) : identity(std::move(id)) {}
  std::string identity;
  int started = 0, stopped = 0;
  SteadyClock::time_point started_at{}, stopped_at{};
  std::vector<std::string> events;
  std::shared_ptr<client::LeaderElector> elector;
};

client::LeaderElectionConfig ConfigFor(Candidate& c) {
  client::LeaderElectionConfig config;
  config.lock_name = kLeaseName;
  config.identity = c.identity;
  config.lease_duration = 2000ms;
  config.renew_deadline = 1000ms;
  config.retry_period = 200ms;
  config.on_started_leading = [&c] {
    ++c.started;
    c.started_at = SteadyClock::now();
  };
  config.on_stopped_leading = [&c] {
    ++c.stopped;
    c.stopped_at = SteadyClock::now();
  };
  config.on_event = [&c](const std::string& reason, const std::string& message) {
    c.events.push_back(reason + ": " + message);
  };
  return config;
}

void StartElector(Candidate& c, const clienttest::TestApiServer& server, asio::io_context& io) {
  auto rest = client::RestClient::New(server.Config(), c.identity, io.get_executor());
  REQUIRE(rest);
  client::LeaderElectionConfig config = ConfigFor(c);
  REQUIRE(client::ValidateLeaderElectionConfig(config) == std::nullopt);
  c.elector = client::LeaderElector::New(*rest, std::move(config), io.get_executor());
  c.elector->Run();
}

// Two candidates, a and b, electing against one fake Lease endpoint; the io_context runs on
// the test thread (PollUntil). The fixture of the election tests. The io_context is declared
// before the candidates so that their electors, which use its strands, go first.
struct TwoCandidates {
  FakeLeases leases;
  clienttest::TestApiServer server{leases};
  asio::io_context io;
  Candidate a{"a"}, b{"b"};
  bool both_led = false;  // set once a and b are seen leading at once

  TwoCandidates() {
    StartElector(a, server, io);
    StartElector(b, server, io);
  }

  // Runs until one of a and b leads and has renewed `renewals` times (both_led set if both
  // lead meanwhile). The leader, or null.
  Candidate* ElectOne(int renewals) {
    Candidate* leader = nullptr;
    bool done = clienttest::PollUntil(
        io,
        [&] {
          if (a.elector->IsLeader() && b.elector->IsLeader()) both_led = true;
          if (!leader && a.elector->IsLeader()) leader = &a;
          if (!leader && b.elector->IsLeader()) leader = &b;
          return leader && leader->elector->Renewals() >= renewals;
        },
        10s);
    return done ? leader : nullptr;
  }

  Candidate& Other(const Candidate& c) { return &c == &a ? b : a; }
};

}  // namespace

TEST_CASE_METHOD(TwoCandidates, "leader election: of two electors exactly one leads, and renews",
                 "[client][leaderelection]") {
  Candidate* leader = ElectOne(1);
  REQUIRE(leader != nullptr);
  Candidate& other = Other(*leader);
  auto first = leases.Lease();
  REQUIRE(first);
  const json first_spec = (*first)["spec"];

  // Three more renewals, and still one leader.
  const int renewed = leader->elector->Renewals();
  REQUIRE(ElectOne(renewed + 3) == leader);
  CHECK_FALSE(both_led);
  CHECK(leader->elector->IsLeader());
  CHECK_FALSE(other.elector->IsLeader());
  CHECK(leader->started == 1);
  CHECK(leader->stopped == 0);
  CHECK(other.started == 0);
  CHECK(other.stopped == 0);
  CHECK(leader->elector->Check());
  CHECK(leader->events ==
        std::vector<std::string>{"LeaderElection: " + leader->identity + " became leader"});
  CHECK(other.events.empty());

  auto now = leases.Lease();
  REQUIRE(now);
  const json& spec = (*now)["spec"];
  CHECK(spec["holderIdentity"] == leader->identity);
  CHECK(spec["leaseDurationSeconds"] == 2);
  CHECK(spec["leaseTransitions"] == 0);
  CHECK(spec["acquireTime"] == first_spec["acquireTime"]);  // kept across renewals
  CHECK(spec["renewTime"] != first_spec["renewTime"]);      // renewed
  std::lock_guard lock(leases.mu);
  CHECK(leases.creates == 1);
}

TEST_CASE_METHOD(TwoCandidates,
                 "leader election: a leader that cannot renew stops; the other takes over",
                 "[client][leaderelection]") {
  Candidate* leader = ElectOne(1);
  REQUIRE(leader != nullptr);
  Candidate& other = Other(*leader);
  auto before = leases.Lease();
  REQUIRE(before);

  // From now on every write of the leader's fails.
  leases.FailPutsFor(leader->identity);
  const SteadyClock::time_point failing_since = SteadyClock::now();
  REQUIRE(clienttest::PollUntil(
      io,
      [&] {
        if (a.elector->IsLeader() && b.elector->IsLeader()) both_led = true;
        return leader->stopped == 1;
      },
      10s));
  CHECK_FALSE(leader->elector->IsLeader());
  // At most a retry period (the wait before a renewal) plus the renew deadline, and slack.
  CHECK(leader->stopped_at - failing_since <= 200ms + 1000ms + 500ms);
  CHECK(leader->events.back() == "LeaderElection: " + leader->identity + " stopped leading");

  // The other elector takes the lease once it has expired (2 s without a change).
  REQUIRE(clienttest::PollUntil(
      io,
      [&] {
        if (a.elector->IsLeader() && b.elector->IsLeader()) both_led = true;
        return other.elector->IsLeader();
      },
      10s));
  CHECK_FALSE(both_led);
  CHECK(other.started == 1);
  CHECK(other.started_at > leader->stopped_at);
  CHECK(other.started_at - failing_since >= 1500ms);  // not before the lease expired
  CHECK(leader->started == 1);                        // the old leader did not come back
  auto after = leases.Lease();
  REQUIRE(after);
  CHECK((*after)["spec"]["holderIdentity"] == other.identity);
  CHECK((*after)["spec"]["leaseTransitions"] ==
        (*before)["spec"]["leaseTransitions"].get<int>() + 1);
  CHECK((*after)["spec"]["acquireTime"] != (*before)["spec"]["acquireTime"]);
  std::lock_guard lock(leases.mu);
  CHECK(leases.failed_puts > 0);
}

TEST_CASE_METHOD(TwoCandidates,
                 "leader election: Stop ends leading; the other takes over after expiry",
                 "[client][leaderelection]") {
  Candidate* leader = ElectOne(1);
  REQUIRE(leader != nullptr);
  Candidate& other = Other(*leader);

  leader->elector->Stop();
  const SteadyClock::time_point stopped_since = SteadyClock::now();
  REQUIRE(clienttest::PollUntil(
      io, [&] { return leader->stopped == 1; }, 10s));
  CHECK_FALSE(leader->elector->IsLeader());
  CHECK(leader->stopped_at - stopped_since <= 200ms + 1000ms + 500ms);
  REQUIRE(clienttest::PollUntil(
      io, [&] { return other.elector->IsLeader(); }, 10s));
  auto after = leases.Lease();
  REQUIRE(after);
  CHECK((*after)["spec"]["holderIdentity"] == other.identity);
  CHECK((*after)["spec"]["leaseTransitions"] == 1);
  CHECK(leader->started == 1);
  CHECK(other.started == 1);
}

TEST_CASE("leader election: the config checks and their messages", "[client][leaderelection]") {
  Candidate c("me");
  client::LeaderElectionConfig base = ConfigFor(c);
  CHECK(client::ValidateLeaderElectionConfig(base) == std::nullopt);

  auto message = [&](auto change) {
    client::LeaderElectionConfig config = base;
    change(config);
    return client::ValidateLeaderElectionConfig(config).value_or("<valid>");
  };
  using Config = client::LeaderElectionConfig;
  CHECK(message([](Config& x) { x.lease_duration = x.renew_deadline; }) ==
        "leaseDuration must be greater than renewDeadline");
  CHECK(message([](Config& x) {
          x.retry_period = 1000ms;
          x.renew_deadline = 1200ms;  // exactly retryPeriod*1.2
          x.lease_duration = 2000ms;
        }) == "renewDeadline must be greater than retryPeriod*JitterFactor");
  CHECK(message([](Config& x) {
          x.retry_period = 1000ms;
          x.renew_deadline = 1201ms;
          x.lease_duration = 2000ms;
        }) == "<valid>");
  CHECK(message([](Config& x) {
          x.lease_duration = 0ms;
          x.renew_deadline = -1ms;
          x.retry_period = -1ms;
        }) == "leaseDuration must be greater than zero");
  CHECK(message([](Config& x) {
          x.lease_duration = 1ms;
          x.renew_deadline = 0ms;
          x.retry_period = -1ms;
        }) == "renewDeadline must be greater than zero");
  CHECK(message([](Config& x) { x.retry_period = 0ms; }) ==
        "retryPeriod must be greater than zero");
  CHECK(message([](Config& x) { x.on_started_leading = nullptr; }) ==
        "OnStartedLeading callback must not be nil");
  CHECK(message([](Config& x) { x.on_stopped_leading = nullptr; }) ==
        "OnStoppedLeading callback must not be nil");
  CHECK(message([](Config& x) { x.identity.clear(); }) == "Lock identity is empty");
}
