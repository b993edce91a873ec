#include "pkg/plugin/admission/event_rate_limit.h"

#include <algorithm>
#include <chrono>
#include <list>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/plugin/admission/fields.h"
#include "pkg/util/strings.h"

namespace plugin::admission {
namespace {

using ::admission::Attributes;
using ::admission::Operation;
using apimachinery::Status;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int64_t kDefaultCacheSize = 4096;

// A token bucket: `burst` tokens, refilled at `qps` a second (flowcontrol's TryAccept).
class Bucket {
 public:
  Bucket(double qps, int64_t burst)
      : qps_(qps),
        burst_(static_cast<double>(burst)),
        tokens_(static_cast<double>(burst)),
        last_(Clock::now()) {}
  bool TryAccept() {
    const Clock::time_point now = Clock::now();
    tokens_ = std::min(burst_, tokens_ + qps_ * std::chrono::duration<double>(now - last_).count());
    last_ = now;
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
  }

 private:
  double qps_, burst_, tokens_;
  Clock::time_point last_;
};

std::string Str(const json& object, const char* key) {
  const json& v = Field(object, key);
  return v.is_string() ? v.get<std::string>() : "";
}

// One limit: its type, its buckets by key, least recently used first. Guarded by mu.
struct Limit {
  std::string type;
  double qps = 0;
  int64_t burst = 0;
  size_t cache_size = kDefaultCacheSize;
  std::mutex mu;
  std::list<std::pair<std::string, Bucket>> lru;
  std::unordered_map<std::string, std::list<std::pair<std::string, Bucket>>::iterator> index;

  std::string KeyOf(const Attributes& a, const json& event) const {
    if (type == "Namespace") return a.ns;
    if (type == "User") return a.options.user ? a.options.user->name : "";
    if (type == "SourceAndObject") {
      const json& source = Field(event, "source");
      const json& object = Field(event, "involvedObject");
      return Str(source, "component") + Str(source, "host") + Str(object, "kind") +
             Str(object, "namespace") + Str(object, "name") + Str(object, "uid") +
             Str(object, "apiVersion");
    }
    return "";  // Server
  }

  bool Accept(const std::string& key) {
    std::lock_guard lock(mu);
    auto it = index.find(key);
    if (it == index.end()) {
      lru.emplace_front(key, Bucket(qps, burst));
      index[key] = lru.begin();
      if (lru.size() > cache_size) {
        index.erase(lru.back().first);
        lru.pop_back();
      }
      return lru.front().second.TryAccept();
    }
    lru.splice(lru.begin(), lru, it->second);
    return it->second->second.TryAccept();
  }
};

class EventRateLimit final : public ::admission::Plugin {
 public:
  explicit EventRateLimit(std::vector<std::unique_ptr<Limit>> limits)
      : limits_(std::move(limits)) {}

  Awaitable<std::optional<Status>> Validate(const Attributes& a, const json& event) const override {
    if (!a.spec.group.empty() || a.spec.plural != "events" || a.options.dry_run) {
      co_return std::nullopt;
    }
    std::vector<std::string> errors;
    for (const auto& limit : limits_) {
      const std::string key = limit->KeyOf(a, event);
      if (!limit->Accept(key)) {
        errors.push_back("limit reached on type " + limit->type + " for key " + key);
      }
    }
    if (errors.empty()) co_return std::nullopt;
    Status status;
    status.code = 429;
    status.reason = "TooManyRequests";
    status.message = "Too many requests: " +
                     (errors.size() == 1 ? errors[0] : "[" + util::Join(errors, ", ") + "]");
    co_return status;
  }

 private:
  std::vector<std::unique_ptr<Limit>> limits_;
};

}  // namespace

std::expected<::admission::PluginPtr, std::string> NewEventRateLimit(const std::string& text) {
  const json doc = text.empty() ? json() : json::parse(text, nullptr, false);
  if (!doc.is_object()) return std::unexpected("no config specified");
  if (doc.value("kind", "") != "Configuration" ||
      doc.value("apiVersion", "") != "eventratelimit.admission.k8s.io/v1alpha1") {
    return std::unexpected(
        "expected Configuration of eventratelimit.admission.k8s.io/v1alpha1, got " +
        doc.value("apiVersion", "") + ", Kind=" + doc.value("kind", ""));
  }
  const json& list = Field(doc, "limits");
  if (!list.is_array() || list.empty()) {
    return std::unexpected("limits: Required value: must not be empty");
  }
  std::vector<std::unique_ptr<Limit>> limits;
  for (size_t i = 0; i < list.size(); ++i) {
    const json& l = list[i];
    auto limit = std::make_unique<Limit>();
    limit->type = Str(l, "type");
    const std::string at = "limits[" + std::to_string(i) + "]";
    if (limit->type != "Server" && limit->type != "Namespace" && limit->type != "User" &&
        limit->type != "SourceAndObject") {
      return std::unexpected(at + ".type: Unsupported value: \"" + limit->type +
                             "\": supported values: \"Namespace\", \"Server\", "
                             "\"SourceAndObject\", \"User\"");
    }
    const json& qps = Field(l, "qps");
    const json& burst = Field(l, "burst");
    if (!qps.is_number_integer() || qps.get<int64_t>() <= 0) {
      return std::unexpected(at + ".qps: Invalid value: " + qps.dump() + ": must be positive");
    }
    if (!burst.is_number_integer() || burst.get<int64_t>() <= 0) {
      return std::unexpected(at + ".burst: Invalid value: " + burst.dump() + ": must be positive");
    }
    limit->qps = static_cast<double>(qps.get<int64_t>());
    limit->burst = burst.get<int64_t>();
    if (const json& size = Field(l, "cacheSize"); size.is_number_integer()) {
      if (size.get<int64_t>() < 0) {
        return std::unexpected(at + ".cacheSize: Invalid value: " + size.dump() +
                               ": must not be negative");
      }
      if (size.get<int64_t>() > 0) limit->cache_size = static_cast<size_t>(size.get<int64_t>());
    }
    limits.push_back(std::move(limit));
  }
  return std::make_shared<EventRateLimit>(std::move(limits));
}

}  // namespace plugin::admission
