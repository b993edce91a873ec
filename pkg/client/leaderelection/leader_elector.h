#pragma once
// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection with a
// LeaseLock: acquire (retry every RetryPeriod with jitter 1.2) when the lease is free or its
// holder has not renewed it for leaseDurationSeconds as seen on the local clock; then renew
// every RetryPeriod, and stop leading when a renewal has not succeeded for RenewDeadline.
// leaseTransitions counts every change of holder; acquireTime is kept across renewals.
//
// Threads: the elector's state lives on its own strand, where Run's coroutine and the
// callbacks run; IsLeader and Check (the `leaderElection` health check) read atomics and
// may be called from any thread.

#include <atomic>
#include <chrono>
#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/strand.hpp>
#include <nlohmann/json_fwd.hpp>

#include "pkg/client/rest/client.h"

namespace client {

struct LeaderElectionConfig {
  std::string lock_namespace = "kube-system";
  std::string lock_name;
  std::string identity;
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  // On the elector's strand. on_started_leading once the lease is ours; on_stopped_leading
  // when it is lost (or Run ends without it).
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
  // "<identity> became leader" / "<identity> stopped leading", for the Lease's events.
  std::function<void(const std::string& reason, const std::string& message)> on_event;
};

// client-go's NewLeaderElector checks, with its messages ("leaseDuration must be greater
// than renewDeadline", ...).
std::optional<std::string> ValidateLeaderElectionConfig(const LeaderElectionConfig& config);

class LeaderElector : public std::enable_shared_from_this<LeaderElector> {
 public:
  static std::shared_ptr<LeaderElector> New(std::shared_ptr<RestClient> client,
                                            LeaderElectionConfig config,
                                            boost::asio::any_io_executor io);
  // Starts electing (once).
  void Run();
  // Stops at the next step; a leader stops leading (on_stopped_leading runs).
  void Stop();
  bool IsLeader() const { return leader_.load(); }
  // Fails while we lead and the lease was last renewed more than lease duration + timeout
  // ago (client-go's HealthzAdaptor).
  std::expected<void, std::string> Check(
      std::chrono::milliseconds timeout = std::chrono::seconds(20)) const;
  // Successful renewals so far (tests, metrics).
  int Renewals() const { return renewals_.load(); }

 private:
  LeaderElector(std::shared_ptr<RestClient> client, LeaderElectionConfig config,
                boost::asio::any_io_executor io);
  Awaitable<void> Elect();
  Awaitable<bool> TryAcquireOrRenew();
  // Writes the Lease; the error's text on failure.
  Awaitable<std::optional<std::string>> Update(nlohmann::json lease);
  std::string Describe() const { return config_.lock_namespace + "/" + config_.lock_name; }

  std::shared_ptr<RestClient> client_;
  LeaderElectionConfig config_;
  boost::asio::strand<boost::asio::any_io_executor> strand_;
  std::atomic<bool> started_{false}, stopped_{false}, leader_{false};
  std::atomic<int> renewals_{0};
  // The local time the lease record last changed or we renewed it (steady clock ticks).
  std::atomic<Clock::rep> observed_time_{0};

  // Strand-owned.
  std::unique_ptr<nlohmann::json> observed_;  // the last Lease read or written
  std::string observed_spec_;                 // its spec as text, to notice changes
};

}  // namespace client
