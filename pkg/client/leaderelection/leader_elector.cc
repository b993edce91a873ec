#include "pkg/client/leaderelection/leader_elector.h"

#include <random>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "pkg/client/rest/resource.h"
#include "pkg/util/log.h"
#include "pkg/util/timestamp.h"

namespace client {

namespace net = boost::asio;
using nlohmann::json;

namespace {

constexpr double kJitterFactor = 1.2;

Awaitable<void> Sleep(Clock::duration d) {
  net::steady_timer timer(co_await net::this_coro::executor, d);
  boost::system::error_code ec;
  co_await timer.async_wait(net::redirect_error(net::use_awaitable, ec));
}

Clock::duration Jitter(Clock::duration d, double factor) {
  thread_local std::mt19937 rng{std::random_device{}()};
  const double r = std::uniform_real_distribution<double>(0, 1)(rng);
  return d + std::chrono::duration_cast<Clock::duration>(d * (r * factor));
}

const GroupVersionResource kLeases{"coordination.k8s.io", "v1", "leases"};

}  // namespace

std::optional<std::string> ValidateLeaderElectionConfig(const LeaderElectionConfig& c) {
  if (c.lease_duration <= c.renew_deadline)
    return "leaseDuration must be greater than renewDeadline";
  if (c.renew_deadline.count() <= kJitterFactor * c.retry_period.count()) {
    return "renewDeadline must be greater than retryPeriod*JitterFactor";
  }
  if (c.lease_duration.count() < 1) return "leaseDuration must be greater than zero";
  if (c.renew_deadline.count() < 1) return "renewDeadline must be greater than zero";
  if (c.retry_period.count() < 1) return "retryPeriod must be greater than zero";
  if (!c.on_started_leading) return "OnStartedLeading callback must not be nil";
  if (!c.on_stopped_leading) return "OnStoppedLeading callback must not be nil";
  if (c.identity.empty()) return "Lock identity is empty";
  return std::nullopt;
}

std::shared_ptr<LeaderElector> LeaderElector::New(std::shared_ptr<RestClient> client,
                                                  LeaderElectionConfig config,
                                                  net::any_io_executor io) {
  return std::shared_ptr<LeaderElector>(
      new LeaderElector(std::move(client), std::move(config), std::move(io)));
}

LeaderElector::LeaderElector(std::shared_ptr<RestClient> client, LeaderElectionConfig config,
                             net::any_io_executor io)
    : client_(std::move(client)), config_(std::move(config)), strand_(net::make_strand(io)) {}

void LeaderElector::Run() {
  if (started_.exchange(true)) return;
  // The lambda holds the elector for as long as its coroutine runs.
  net::co_spawn(
      strand_, [self = shared_from_this()] { return self->Elect(); }, net::detached);
}

void LeaderElector::Stop() { stopped_ = true; }

std::expected<void, std::string> LeaderElector::Check(std::chrono::milliseconds timeout) const {
  if (!leader_) return {};
  const Clock::time_point observed{Clock::duration(observed_time_.load())};
  if (Clock::now() - observed > config_.lease_duration + timeout) {
    return std::unexpected("failed election to renew leadership on lease " + config_.lock_name);
  }
  return {};
}

Awaitable<void> LeaderElector::Elect() {
  auto self = shared_from_this();
  KLOG_INFO << "attempting to acquire leader lease " << Describe() << "...";
  bool acquired = false;
  while (!stopped_) {
    if (co_await TryAcquireOrRenew()) {
      acquired = true;
      break;
    }
    KLOG_V(4) << "failed to acquire lease " << Describe();
    co_await Sleep(Jitter(config_.retry_period, kJitterFactor));
  }
  if (acquired) {
    leader_ = true;
    if (config_.on_event) config_.on_event("LeaderElection", config_.identity + " became leader");
    KLOG_INFO << "successfully acquired lease " << Describe();
    config_.on_started_leading();
    while (!stopped_) {
      co_await Sleep(config_.retry_period);
      // Poll at once and every retry period until renewed or the renew deadline passed.
      const Clock::time_point deadline = Clock::now() + config_.renew_deadline;
      bool renewed = false;
      while (!stopped_ && Clock::now() < deadline) {
        if (co_await TryAcquireOrRenew()) {
          renewed = true;
          break;
        }
        co_await Sleep(std::min<Clock::duration>(config_.retry_period, deadline - Clock::now()));
      }
      if (stopped_) break;
      if (!renewed) {
        KLOG_INFO << "failed to renew lease " << Describe()
                  << ": timed out waiting for the condition";
        break;
      }
      ++renewals_;
      KLOG_V(5) << "successfully renewed lease " << Describe();
    }
    leader_ = false;
    if (config_.on_event) config_.on_event("LeaderElection", config_.identity + " stopped leading");
  }
  config_.on_stopped_leading();
}

Awaitable<std::optional<std::string>> LeaderElector::Update(json lease) {
  const auto timeout =
      std::max<Clock::duration>(std::chrono::seconds(1), config_.renew_deadline / 2);
  auto updated = co_await client_->Json(
      "PUT", ResourcePath(kLeases, config_.lock_namespace, config_.lock_name), &lease,
      "application/json", timeout);
  if (!updated) co_return updated.error().String();
  observed_spec_ = (*updated)["spec"].dump();
  observed_ = std::make_unique<json>(std::move(*updated));
  observed_time_ = Clock::now().time_since_epoch().count();
  co_return std::nullopt;
}

Awaitable<bool> LeaderElector::TryAcquireOrRenew() {
  const std::string now = util::FormatMicroTime(std::chrono::system_clock::now());
  // The Lease holds whole seconds: round up, so a lease of 1.5 s is never recorded as
  // shorter than it is held.
  const int64_t duration_seconds =
      std::chrono::ceil<std::chrono::seconds>(config_.lease_duration).count();
  const auto timeout =
      std::max<Clock::duration>(std::chrono::seconds(1), config_.renew_deadline / 2);
  const Clock::time_point observed_at{Clock::duration(observed_time_.load())};

  // Fast path: we lead and our last write is still valid; renew without reading.
  if (leader_ && observed_ && observed_at + std::chrono::seconds(duration_seconds) > Clock::now()) {
    json lease = *observed_;
    lease["spec"]["renewTime"] = now;
    auto error = co_await Update(lease);
    if (!error) co_return true;
    KLOG_INFO << "Failed to update lock optimitically: " << *error << ", falling back to slow path";
  }

  const std::string path = ResourcePath(kLeases, config_.lock_namespace, config_.lock_name);
  auto got = co_await client_->Json("GET", path, nullptr, "", timeout);
  if (!got) {
    if (!got.error().IsNotFound()) {
      KLOG_ERROR << "error retrieving resource lock " << Describe() << ": " << got.error().String();
      co_return false;
    }
    json lease = {
        {"apiVersion", "coordination.k8s.io/v1"},
        {"kind", "Lease"},
        {"metadata", {{"name", config_.lock_name}, {"namespace", config_.lock_namespace}}},
        {"spec",
         {{"holderIdentity", config_.identity},
          {"leaseDurationSeconds", duration_seconds},
          {"acquireTime", now},
          {"renewTime", now},
          {"leaseTransitions", 0}}}};
    auto created = co_await client_->Json("POST", ResourcePath(kLeases, config_.lock_namespace),
                                          &lease, "application/json", timeout);
    if (!created) {
      KLOG_ERROR << "error initially creating leader election record: " << created.error().String();
      co_return false;
    }
    observed_spec_ = (*created)["spec"].dump();
    observed_ = std::make_unique<json>(std::move(*created));
    observed_time_ = Clock::now().time_since_epoch().count();
    co_return true;
  }

  json& spec = (*got)["spec"];
  if (!spec.is_object()) spec = json::object();
  if (spec.dump() != observed_spec_) {
    observed_spec_ = spec.dump();
    observed_time_ = Clock::now().time_since_epoch().count();
  }
  const std::string holder = spec.value("holderIdentity", "");
  const int64_t held_for = spec.value("leaseDurationSeconds", int64_t{0});
  const Clock::time_point seen{Clock::duration(observed_time_.load())};
  if (!holder.empty() && holder != config_.identity &&
      seen + std::chrono::seconds(held_for) > Clock::now()) {
    KLOG_V(4) << "lock is held by " << holder << " and has not yet expired";
    observed_ = std::make_unique<json>(*got);
    co_return false;
  }
  if (holder != config_.identity) {
    spec["leaseTransitions"] = spec.value("leaseTransitions", int64_t{0}) + 1;
    spec["acquireTime"] = now;
  }
  spec["holderIdentity"] = config_.identity;
  spec["leaseDurationSeconds"] = duration_seconds;
  spec["renewTime"] = now;
  if (auto error = co_await Update(std::move(*got))) {
    KLOG_ERROR << "Failed to update lock: " << *error;
    co_return false;
  }
  co_return true;
}

}  // namespace client
