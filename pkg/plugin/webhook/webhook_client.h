#pragma once
// What the authorization and token-authentication webhooks share, as upstream's
// k8s.io/apiserver/pkg/util/webhook: a client of the service a kubeconfig file names (its
// cluster's server URL and CA, its user's credentials), posting one review at a time with
// retries on failures that may pass (no answer, 429, 5xx: 500 ms, x1.5, five tries), and a
// cache of answers that expire after a TTL.
//
// Threads: WebhookClient may be used from any coroutine at once (the RestClient's pool is
// thread-safe); each post runs on the caller's executor. TTLCache is guarded by a mutex.

#include <chrono>
#include <expected>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include <boost/asio/any_io_executor.hpp>
#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/server/awaitable.h"

namespace client {
class RestClient;
}

namespace webhook {

class WebhookClient {
 public:
  // Connections are made on executor's strands. Fails when the kubeconfig does not load.
  static std::expected<std::shared_ptr<WebhookClient>, std::string> New(
      const std::string& kubeconfig_file, std::string user_agent,
      boost::asio::any_io_executor executor);

  // The review the service answered (a 2xx JSON body), or why there is none.
  Awaitable<std::expected<nlohmann::json, std::string>> Post(const nlohmann::json& review) const;

 private:
  std::shared_ptr<client::RestClient> client_;
};

template <class V>
class TTLCache {
 public:
  using Clock = std::chrono::steady_clock;
  explicit TTLCache(size_t max_entries = 8192) : max_entries_(max_entries) {}

  std::optional<V> Get(const std::string& key) const {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end() || it->second.expires <= Clock::now()) return std::nullopt;
    return it->second.value;
  }
  void Put(const std::string& key, V value, Clock::duration ttl) {
    if (ttl <= Clock::duration::zero()) return;
    const auto now = Clock::now();
    std::lock_guard lock(mu_);
    if (entries_.size() >= max_entries_) {
      std::erase_if(entries_, [&](const auto& e) { return e.second.expires <= now; });
      if (entries_.size() >= max_entries_) entries_.clear();
    }
    entries_[key] = Entry{std::move(value), now + ttl};
  }

 private:
  struct Entry {
    V value;
    Clock::time_point expires;
  };
  size_t max_entries_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace webhook
