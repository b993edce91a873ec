#include "pkg/client/record/event_recorder.h"

#include <cstdio>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <nlohmann/json.hpp>

#include "pkg/client/rest/resource.h"
#include "pkg/util/log.h"
#include "pkg/util/timestamp.h"

namespace client {

namespace net = boost::asio;
using nlohmann::json;

namespace {

constexpr auto kAggregationWindow = std::chrono::minutes(10);
constexpr double kBurst = 25;
constexpr auto kRefill = std::chrono::minutes(5);  // one token per
constexpr size_t kMaxQueued = 1000;
const GroupVersionResource kEvents{"", "v1", "events"};

std::string MetaField(const json& object, const char* field) {
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return "";
  auto f = m->find(field);
  return f != m->end() && f->is_string() ? f->get<std::string>() : "";
}

}  // namespace

ObjectReference ReferenceTo(const json& object) {
  ObjectReference r;
  r.api_version = object.value("apiVersion", "");
  r.kind = object.value("kind", "");
  r.namespace_name = MetaField(object, "namespace");
  r.name = MetaField(object, "name");
  r.uid = MetaField(object, "uid");
  r.resource_version = MetaField(object, "resourceVersion");
  return r;
}

std::shared_ptr<EventRecorder> EventRecorder::New(std::shared_ptr<RestClient> client,
                                                  std::string component, std::string host,
                                                  net::any_io_executor io) {
  return std::shared_ptr<EventRecorder>(
      new EventRecorder(std::move(client), std::move(component), std::move(host), std::move(io)));
}

EventRecorder::EventRecorder(std::shared_ptr<RestClient> client, std::string component,
                             std::string host, net::any_io_executor io)
    : client_(std::move(client)),
      component_(std::move(component)),
      host_(std::move(host)),
      strand_(net::make_strand(io)) {}

void EventRecorder::Event(const ObjectReference& object, std::string type, std::string reason,
                          std::string message) {
  net::post(strand_, [self = shared_from_this(),
                      pending = Pending{object, std::move(type), std::move(reason),
                                        std::move(message)}]() mutable {
    // As client-go's broadcaster, at most 1000 events wait; more are dropped.
    if (self->pending_.size() >= kMaxQueued) return;
    self->pending_.push_back(std::move(pending));
    if (self->writing_) return;
    self->writing_ = true;
    net::co_spawn(
        self->strand_, [self]() { return self->Drain(); }, net::detached);
  });
}

// One writer at a time, in the order the events came: the same event recorded twice in a
// row is one Event with count 2, never two Events written side by side.
Awaitable<void> EventRecorder::Drain() {
  auto self = shared_from_this();
  while (!pending_.empty()) {
    Pending next = std::move(pending_.front());
    pending_.pop_front();
    try {
      co_await Write(std::move(next.object), std::move(next.type), std::move(next.reason),
                     std::move(next.message));
    } catch (const std::exception& e) {  // one event lost, never the recorder
      KLOG_WARNING << "recording an event failed: " << e.what();
    }
  }
  writing_ = false;
}

Awaitable<void> EventRecorder::Write(ObjectReference object, std::string type, std::string reason,
                                     std::string message) {
  auto self = shared_from_this();
  const Clock::time_point now = Clock::now();
  const std::string object_key =
      object.uid.empty() ? object.namespace_name + "/" + object.name : object.uid;
  Bucket& bucket = buckets_.try_emplace(object_key, Bucket{kBurst, now}).first->second;
  bucket.tokens =
      std::min(kBurst, bucket.tokens + std::chrono::duration<double>(now - bucket.refilled) /
                                           std::chrono::duration<double>(kRefill));
  bucket.refilled = now;
  if (bucket.tokens < 1) co_return;  // spam: dropped, as client-go's filter drops it
  bucket.tokens -= 1;

  const std::string wall = util::FormatTime(std::chrono::system_clock::now());
  const std::string ns = object.namespace_name.empty() ? "default" : object.namespace_name;
  auto key = std::make_tuple(object_key, type, reason, message);
  if (auto it = recorded_.find(key);
      it != recorded_.end() && now - it->second.last < kAggregationWindow) {
    Recorded& r = it->second;
    json patch = {{"count", r.count + 1}, {"lastTimestamp", wall}};
    auto patched = co_await client_->Patch(ResourcePath(kEvents, r.namespace_name, r.name), patch,
                                           "application/strategic-merge-patch+json");
    if (patched) {
      r.count += 1;
      r.last = now;
      co_return;
    }
    recorded_.erase(it);  // gone or unreachable: write a new one
  }
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".%llx", static_cast<unsigned long long>(nanos));
  const std::string name = object.name + suffix;
  json involved = {
      {"kind", object.kind}, {"name", object.name}, {"apiVersion", object.api_version}};
  if (!object.namespace_name.empty()) involved["namespace"] = object.namespace_name;
  if (!object.uid.empty()) involved["uid"] = object.uid;
  if (!object.resource_version.empty()) involved["resourceVersion"] = object.resource_version;
  json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", name}, {"namespace", ns}}},
                {"involvedObject", involved},
                {"reason", reason},
                {"message", message},
                {"type", type},
                {"source", {{"component", component_}}},
                {"firstTimestamp", wall},
                {"lastTimestamp", wall},
                {"count", 1},
                {"reportingComponent", component_},
                {"reportingInstance", host_}};
  if (!host_.empty()) event["source"]["host"] = host_;
  auto created = co_await client_->Post(ResourcePath(kEvents, ns), event);
  if (!created) {
    KLOG_WARNING << "Server rejected event (will not retry!): " << created.error().String();
    co_return;
  }
  recorded_[key] = Recorded{ns, name, 1, now};
}

}  // namespace client
