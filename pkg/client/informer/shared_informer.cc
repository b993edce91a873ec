#include "pkg/client/informer/shared_informer.h"

#include <random>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "pkg/util/log.h"

namespace client {

namespace net = boost::asio;
using nlohmann::json;

namespace {

constexpr char kMetadataListAccept[] =
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
constexpr char kMetadataAccept[] =
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

std::string Meta(const json& object, const char* field) {
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return "";
  auto f = m->find(field);
  return f != m->end() && f->is_string() ? f->get<std::string>() : "";
}

Awaitable<void> Sleep(Clock::duration d) {
  net::steady_timer timer(co_await net::this_coro::executor, d);
  boost::system::error_code ec;
  co_await timer.async_wait(net::redirect_error(net::use_awaitable, ec));
}

// A watch's server-side timeout: random in [5 min, 10 min), as client-go's reflector.
int WatchTimeoutSeconds() {
  thread_local std::mt19937 rng{std::random_device{}()};
  return 300 + static_cast<int>(rng() % 300);
}

}  // namespace

std::string KeyOf(const json& object) {
  const std::string ns = Meta(object, "namespace");
  const std::string name = Meta(object, "name");
  return ns.empty() ? name : ns + "/" + name;
}

std::pair<std::string, std::string> SplitKey(const std::string& key) {
  const size_t slash = key.find('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

std::shared_ptr<SharedInformer> SharedInformer::New(std::shared_ptr<RestClient> client,
                                                    GroupVersionResource gvr,
                                                    InformerOptions options,
                                                    net::any_io_executor io) {
  return std::shared_ptr<SharedInformer>(
      new SharedInformer(std::move(client), std::move(gvr), std::move(options), std::move(io)));
}

SharedInformer::SharedInformer(std::shared_ptr<RestClient> client, GroupVersionResource gvr,
                               InformerOptions options, net::any_io_executor io)
    : client_(std::move(client)),
      gvr_(std::move(gvr)),
      options_(std::move(options)),
      strand_(net::make_strand(io)) {
  indexers_[kNamespaceIndex] = [](const json& o) {
    return std::vector<std::string>{Meta(o, "namespace")};
  };
}

void SharedInformer::AddEventHandler(ResourceEventHandler handler) {
  net::post(strand_, [self = shared_from_this(), handler = std::move(handler)]() mutable {
    if (self->synced_ && handler.on_add) {
      for (const ObjectPtr& o : self->List()) handler.on_add(o);
    }
    self->handlers_.push_back(std::move(handler));
  });
}

void SharedInformer::AddIndexer(std::string name, IndexFunc index) {
  std::unique_lock lock(mu_);
  indexers_[std::move(name)] = std::move(index);
}

void SharedInformer::Start() {
  if (started_.exchange(true)) return;
  // The lambda holds the informer for as long as its coroutine runs.
  net::co_spawn(
      strand_, [self = shared_from_this()] { return self->Run(); }, net::detached);
}

void SharedInformer::Stop() {
  stopped_ = true;
  net::post(strand_, [self = shared_from_this()] {
    if (self->stream_) self->stream_->Close();
  });
}

ObjectPtr SharedInformer::Get(const std::string& key) const {
  std::shared_lock lock(mu_);
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> SharedInformer::List() const {
  std::shared_lock lock(mu_);
  std::vector<ObjectPtr> out;
  out.reserve(items_.size());
  for (const auto& [key, object] : items_) out.push_back(object);
  return out;
}

std::vector<ObjectPtr> SharedInformer::ByIndex(const std::string& index,
                                               const std::string& value) const {
  std::shared_lock lock(mu_);
  std::vector<ObjectPtr> out;
  auto i = indexes_.find(index);
  if (i == indexes_.end()) return out;
  auto v = i->second.find(value);
  if (v == i->second.end()) return out;
  for (const std::string& key : v->second) {
    if (auto it = items_.find(key); it != items_.end()) out.push_back(it->second);
  }
  return out;
}

std::string SharedInformer::Query(bool watch) const {
  std::string q;
  auto add = [&q](const std::string& k, const std::string& v) {
    q += q.empty() ? "?" : "&";
    q += k + "=" + QueryEscape(v);
  };
  if (!options_.label_selector.empty()) add("labelSelector", options_.label_selector);
  if (!options_.field_selector.empty()) add("fieldSelector", options_.field_selector);
  if (watch) {
    add("watch", "1");
    add("allowWatchBookmarks", "true");
    add("resourceVersion", resource_version_);
    add("timeoutSeconds", std::to_string(WatchTimeoutSeconds()));
  } else {
    add("limit", std::to_string(options_.page_size));
  }
  return q;
}

Awaitable<void> SharedInformer::Run() {
  auto self = shared_from_this();
  if (options_.resync.count() > 0) {
    net::co_spawn(
        strand_,
        [self]() -> Awaitable<void> {
          while (!self->stopped_) {
            co_await Sleep(self->options_.resync);
            if (!self->stopped_) self->Resync();
          }
        },
        net::detached);
  }
  // client-go's reflector backoff: 800 ms doubling to 30 s, reset after a good run.
  Clock::duration backoff = std::chrono::milliseconds(800);
  while (!stopped_) {
    auto r = co_await ListAndWatch();
    if (stopped_) break;
    if (r) {
      backoff = std::chrono::milliseconds(800);
      continue;
    }
    KLOG_WARNING << "failed to list or watch " << gvr_.String() << ": " << r.error().String();
    co_await Sleep(backoff);
    backoff = std::min<Clock::duration>(backoff * 2, std::chrono::seconds(30));
  }
}

Awaitable<Result<std::string>> SharedInformer::ListInto(std::map<std::string, ObjectPtr>& items) {
  const std::string base = ResourcePath(gvr_, options_.namespace_name) + Query(false);
  std::string continue_token;
  std::string resource_version;
  do {
    std::string target = base;
    if (!continue_token.empty()) target += "&continue=" + QueryEscape(continue_token);
    std::string no_body, no_type;
    std::string accept = options_.metadata_only ? kMetadataListAccept : "application/json";
    auto r = co_await client_->Do("GET", target, no_body, no_type, accept, std::chrono::minutes(1));
    if (!r) co_return std::unexpected(r.error());
    if (r->status != 200) co_return std::unexpected(ErrorFromResponse(r->status, r->body));
    json list = json::parse(r->body, nullptr, false);
    if (!list.is_object()) co_return std::unexpected(ApiError{0, "", "list is not JSON"});
    const json& meta = list.value("metadata", json::object());
    resource_version = meta.value("resourceVersion", "");
    continue_token = meta.value("continue", "");
    auto it = list.find("items");
    if (it != list.end() && it->is_array()) {
      for (json& item : *it) {
        std::string key = KeyOf(item);
        items[std::move(key)] = std::make_shared<const json>(std::move(item));
      }
    }
  } while (!continue_token.empty());
  co_return resource_version;
}

Awaitable<Result<void>> SharedInformer::ListAndWatch() {
  std::map<std::string, ObjectPtr> items;
  auto rv = co_await ListInto(items);
  if (!rv) co_return std::unexpected(rv.error());
  Replace(std::move(items));
  resource_version_ = *rv;
  const std::string path = ResourcePath(gvr_, options_.namespace_name);
  while (!stopped_) {
    std::string watch_target = path + Query(true);
    std::string watch_accept = options_.metadata_only ? kMetadataAccept : "application/json";
    auto opened = co_await client_->OpenStream(watch_target, watch_accept);
    if (!opened) {
      if (opened.error().IsGone()) co_return Result<void>();  // too old: list again
      co_return std::unexpected(opened.error());
    }
    stream_ = std::move(*opened);
    if (stopped_) stream_->Close();
    const Clock::time_point opened_at = Clock::now();
    int events = 0;
    while (true) {
      auto doc = co_await stream_->Next();
      if (!doc) {  // the watch broke: back off, then list again
        stream_.reset();
        co_return std::unexpected(ApiError{0, "", "watch broke: " + doc.error()});
      }
      if (!*doc) break;  // the watch ended: watch again from here
      ++events;
      json event = json::parse(**doc, nullptr, false);
      if (!event.is_object()) continue;
      const std::string type = event.value("type", "");
      auto obj = event.find("object");
      if (obj == event.end() || !obj->is_object()) continue;
      if (type == "ERROR") {
        stream_.reset();
        ApiError e = ErrorFromResponse(obj->value("code", 500), obj->dump());
        if (e.IsGone()) co_return Result<void>();
        co_return std::unexpected(e);
      }
      const std::string object_rv = Meta(*obj, "resourceVersion");
      if (type == "BOOKMARK") {
        if (!object_rv.empty()) resource_version_ = object_rv;
        continue;
      }
      if (type == "DELETED") {
        Remove(KeyOf(*obj));
      } else if (type == "ADDED" || type == "MODIFIED") {
        Upsert(std::make_shared<const json>(std::move(*obj)));
      }
      if (!object_rv.empty()) resource_version_ = object_rv;
    }
    stream_.reset();
    // A watch that ends at once with nothing in it is a server refusing to hold watches
    // (as client-go's reflector, a "very short watch" is an error): back off rather than
    // spin reopening it.
    if (!stopped_ && events == 0 && Clock::now() - opened_at < std::chrono::seconds(1)) {
      co_return std::unexpected(ApiError{0, "", "very short watch: the watch ended at once"});
    }
  }
  co_return Result<void>();
}

void SharedInformer::IndexLocked(const std::string& key, const json& object, bool add) {
  for (const auto& [name, index] : indexers_) {
    auto& values = indexes_[name];
    for (const std::string& v : index(object)) {
      if (add) {
        values[v].insert(key);
      } else if (auto it = values.find(v); it != values.end()) {
        it->second.erase(key);
        if (it->second.empty()) values.erase(it);
      }
    }
  }
}

void SharedInformer::Replace(std::map<std::string, ObjectPtr> items) {
  std::vector<std::pair<ObjectPtr, ObjectPtr>> changes;  // (old, new); either may be null
  {
    std::unique_lock lock(mu_);
    for (const auto& [key, old_object] : items_) {
      auto it = items.find(key);
      if (it == items.end()) {
        changes.emplace_back(old_object, nullptr);
      } else if (Meta(*old_object, "resourceVersion") != Meta(*it->second, "resourceVersion")) {
        changes.emplace_back(old_object, it->second);
      }
    }
    for (const auto& [key, object] : items) {
      if (!items_.contains(key)) changes.emplace_back(nullptr, object);
    }
    items_ = std::move(items);
    indexes_.clear();
    for (const auto& [key, object] : items_) IndexLocked(key, *object, true);
  }
  for (const auto& [old_object, object] : changes) {
    for (const ResourceEventHandler& h : handlers_) {
      if (!old_object) {
        if (h.on_add) h.on_add(object);
      } else if (!object) {
        if (h.on_delete) h.on_delete(old_object);
      } else if (h.on_update) {
        h.on_update(old_object, object);
      }
    }
  }
  synced_ = true;
}

void SharedInformer::Upsert(ObjectPtr object) {
  const std::string key = KeyOf(*object);
  ObjectPtr old_object;
  {
    std::unique_lock lock(mu_);
    auto it = items_.find(key);
    if (it != items_.end()) {
      old_object = it->second;
      IndexLocked(key, *old_object, false);
      it->second = object;
    } else {
      items_.emplace(key, object);
    }
    IndexLocked(key, *object, true);
  }
  for (const ResourceEventHandler& h : handlers_) {
    if (old_object) {
      if (h.on_update) h.on_update(old_object, object);
    } else if (h.on_add) {
      h.on_add(object);
    }
  }
}

void SharedInformer::Remove(const std::string& key) {
  ObjectPtr old_object;
  {
    std::unique_lock lock(mu_);
    auto it = items_.find(key);
    if (it == items_.end()) return;
    old_object = it->second;
    IndexLocked(key, *old_object, false);
    items_.erase(it);
  }
  for (const ResourceEventHandler& h : handlers_) {
    if (h.on_delete) h.on_delete(old_object);
  }
}

void SharedInformer::Resync() {
  for (const ObjectPtr& o : List()) {
    for (const ResourceEventHandler& h : handlers_) {
      if (h.on_update) h.on_update(o, o);
    }
  }
}

// ---------------------------------------------------------------------------------------

SharedInformerFactory::SharedInformerFactory(std::shared_ptr<RestClient> client,
                                             net::any_io_executor io,
                                             std::chrono::milliseconds resync)
    : client_(std::move(client)), io_(std::move(io)), resync_(resync) {}

std::shared_ptr<SharedInformer> SharedInformerFactory::Informer(const GroupVersionResource& gvr,
                                                                bool metadata) {
  std::lock_guard lock(mu_);
  auto& slot = informers_[{gvr, metadata}];
  if (!slot) {
    InformerOptions options;
    options.metadata_only = metadata;
    options.resync = resync_;
    slot = SharedInformer::New(client_, gvr, options, io_);
  }
  return slot;
}

std::shared_ptr<SharedInformer> SharedInformerFactory::ForResource(
    const GroupVersionResource& gvr) {
  return Informer(gvr, false);
}

std::shared_ptr<SharedInformer> SharedInformerFactory::MetadataForResource(
    const GroupVersionResource& gvr) {
  return Informer(gvr, true);
}

void SharedInformerFactory::Start() {
  std::lock_guard lock(mu_);
  for (auto& [key, informer] : informers_) informer->Start();
}

void SharedInformerFactory::Stop() {
  std::lock_guard lock(mu_);
  for (auto& [key, informer] : informers_) informer->Stop();
}

Awaitable<bool> WaitForCacheSync(std::vector<std::shared_ptr<SharedInformer>> informers,
                                 std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (true) {
    bool all = true;
    for (const auto& i : informers) all = all && i->HasSynced();
    if (all) co_return true;
    if (Clock::now() >= deadline) co_return false;
    co_await Sleep(std::chrono::milliseconds(20));
  }
}

}  // namespace client
