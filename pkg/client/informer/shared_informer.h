#pragma once
// A shared informer, as client-go's: a reflector that lists a resource and then watches it
// from the list's resourceVersion (with bookmarks; a new list after 410 Gone; backoff on
// errors; a new watch when one ends), a cache of the objects with indexes, event handlers
// told of every add, update and delete, and a periodic resync that replays every object
// as an update. Metadata-only informers ask for PartialObjectMetadata (the garbage
// collector's view of every resource).
//
// Threads: the reflector, the cache's writes and the handlers run on the informer's own
// strand; handlers must be quick and only enqueue keys (DESIGN.md section 10). Reads of the
// cache (Get, List, ByIndex, HasSynced) may come from any thread: a shared mutex guards the
// cache, and the objects are immutable once stored (shared_ptr<const json>).

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/strand.hpp>
#include <nlohmann/json_fwd.hpp>

#include "pkg/client/rest/client.h"
#include "pkg/client/rest/resource.h"
#include "pkg/genericserver/server/awaitable.h"

namespace client {

using ObjectPtr = std::shared_ptr<const nlohmann::json>;

// The cache key of an object: "<namespace>/<name>", or "<name>" when cluster-scoped.
std::string KeyOf(const nlohmann::json& object);
// "<namespace>/<name>" split back; namespace empty for "<name>".
std::pair<std::string, std::string> SplitKey(const std::string& key);

struct ResourceEventHandler {
  std::function<void(const ObjectPtr&)> on_add;
  std::function<void(const ObjectPtr& old_object, const ObjectPtr& object)> on_update;
  // The last state known of an object deleted (or gone by the time of a new list).
  std::function<void(const ObjectPtr&)> on_delete;
};

// The values an object is indexed under.
using IndexFunc = std::function<std::vector<std::string>(const nlohmann::json&)>;
inline constexpr char kNamespaceIndex[] = "namespace";

struct InformerOptions {
  std::string namespace_name;  // empty: every namespace
  std::string label_selector;
  std::string field_selector;
  bool metadata_only = false;
  std::chrono::milliseconds resync{0};  // 0: never
  int64_t page_size = 500;
};

class SharedInformer : public std::enable_shared_from_this<SharedInformer> {
 public:
  using Strand = boost::asio::strand<boost::asio::any_io_executor>;
  static std::shared_ptr<SharedInformer> New(std::shared_ptr<RestClient> client,
                                             GroupVersionResource gvr, InformerOptions options,
                                             boost::asio::any_io_executor io);
  SharedInformer(const SharedInformer&) = delete;
  SharedInformer& operator=(const SharedInformer&) = delete;

  // From any thread. A handler added once objects are cached is told of each as an add.
  void AddEventHandler(ResourceEventHandler handler);
  // Before Start.
  void AddIndexer(std::string name, IndexFunc index);
  // Starts the reflector (once; later calls do nothing).
  void Start();
  void Stop();
  bool Started() const { return started_.load(); }
  // The first list has been stored and its adds delivered.
  bool HasSynced() const { return synced_.load(); }

  ObjectPtr Get(const std::string& key) const;
  std::vector<ObjectPtr> List() const;
  std::vector<ObjectPtr> ByIndex(const std::string& index, const std::string& value) const;
  const GroupVersionResource& gvr() const { return gvr_; }
  const Strand& strand() const { return strand_; }

 private:
  SharedInformer(std::shared_ptr<RestClient> client, GroupVersionResource gvr,
                 InformerOptions options, boost::asio::any_io_executor io);
  Awaitable<void> Run();
  // One list and the watches after it; returns when a new list is needed or on stop.
  Awaitable<Result<void>> ListAndWatch();
  Awaitable<Result<std::string>> ListInto(std::map<std::string, ObjectPtr>& items);
  void Replace(std::map<std::string, ObjectPtr> items);
  void Upsert(ObjectPtr object);
  void Remove(const std::string& key);
  void IndexLocked(const std::string& key, const nlohmann::json& object, bool add);
  void Resync();
  std::string Query(bool watch) const;

  std::shared_ptr<RestClient> client_;
  const GroupVersionResource gvr_;
  const InformerOptions options_;
  Strand strand_;
  std::atomic<bool> started_{false}, stopped_{false}, synced_{false};

  // Strand-owned.
  std::vector<ResourceEventHandler> handlers_;
  std::string resource_version_;
  std::shared_ptr<Stream> stream_;  // the watch being read, for Stop

  // Guarded by mu_ (writes on the strand only).
  mutable std::shared_mutex mu_;
  std::map<std::string, ObjectPtr> items_;
  std::map<std::string, IndexFunc> indexers_;
  std::map<std::string, std::map<std::string, std::set<std::string>>> indexes_;
};

// Informers shared by every controller: one per resource (and per kind of view).
// Threads: any; a mutex guards the map.
class SharedInformerFactory {
 public:
  SharedInformerFactory(std::shared_ptr<RestClient> client, boost::asio::any_io_executor io,
                        std::chrono::milliseconds resync = std::chrono::milliseconds(0));
  std::shared_ptr<SharedInformer> ForResource(const GroupVersionResource& gvr);
  std::shared_ptr<SharedInformer> MetadataForResource(const GroupVersionResource& gvr);
  // Starts every informer asked for so far that has not started.
  void Start();
  void Stop();
  const std::shared_ptr<RestClient>& client() const { return client_; }

 private:
  std::shared_ptr<SharedInformer> Informer(const GroupVersionResource& gvr, bool metadata);
  std::shared_ptr<RestClient> client_;
  boost::asio::any_io_executor io_;
  std::chrono::milliseconds resync_;
  std::mutex mu_;
  std::map<std::pair<GroupVersionResource, bool>, std::shared_ptr<SharedInformer>> informers_;
};

// Waits until every informer has synced (polling), or `timeout` passed: false then.
Awaitable<bool> WaitForCacheSync(std::vector<std::shared_ptr<SharedInformer>> informers,
                                 std::chrono::milliseconds timeout = std::chrono::hours(24 * 365));

}  // namespace client
