#pragma once
// The server's Prometheus metrics, rendered by /metrics in the text format 0.0.4.
// Thread-safe; one instance is shared by every server of the chain.

#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

namespace genericserver {

struct RequestLabels {
  std::string verb;  // GET, LIST, WATCH, POST, PUT, PATCH, DELETE, ...
  std::string dry_run;
  std::string group;
  std::string version;
  std::string resource;
  std::string subresource;
  std::string scope;  // cluster, namespace, resource, or empty for non-resource paths
  std::string component = "apiserver";

  auto Key() const {
    return std::tie(verb, dry_run, group, version, resource, subresource, scope, component);
  }
  bool operator<(const RequestLabels& o) const { return Key() < o.Key(); }
};

class Metrics {
 public:
  // Upper bounds of apiserver_request_duration_seconds, in seconds.
  static constexpr std::array<double, 23> kDurationBuckets = {
      0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2,
      3,     4,     5,    6,   8,   10,  15,  20,  30,  45,   60};

  void ObserveRequest(const RequestLabels& labels, int code, double seconds);
  // request_kind is "readOnly" or "mutating".
  void AddInFlight(bool mutating, int delta);
  // apiserver_longrunning_requests: watches and connections being served now.
  void AddLongRunning(const RequestLabels& labels, int delta);
  std::string Render() const;

 private:
  struct Histogram {
    std::array<uint64_t, kDurationBuckets.size()> buckets{};
    uint64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mu_;
  std::map<std::pair<RequestLabels, int>, uint64_t> requests_;
  std::map<RequestLabels, Histogram> durations_;
  std::map<RequestLabels, int64_t> long_running_;  // dry_run is always empty
  std::atomic<int64_t> inflight_read_only_{0};
  std::atomic<int64_t> inflight_mutating_{0};
};

}  // namespace genericserver
