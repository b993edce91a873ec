#pragma once
// The resource monitors: one metadata-only informer per deletable resource (upstream's
// monitors), made and dropped as discovery changes, started only once the controller
// manager's shared informers have started. Their events go to a sink with the resource's
// apiVersion and kind (metadata-only objects carry PartialObjectMetadata's).
//
// Threads: the Monitors object belongs to the garbage collector's strand (Sync, StartNew,
// IsSynced are called there). The sink is called on each informer's own strand and must
// only post the event on. Cached reads an informer's cache, which any thread may do.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "pkg/client/discovery/discovery.h"
#include "pkg/client/informer/shared_informer.h"
#include "pkg/controller/garbagecollector/graph_builder.h"
#include "pkg/controller/garbagecollector/object_meta.h"

namespace controller::garbagecollector {

struct MonitorEvent {
  EventType type = EventType::kAdd;
  std::string api_version, kind;
  client::ObjectPtr object;
  client::ObjectPtr old_object;  // updates only
};
using MonitorSink = std::function<void(MonitorEvent)>;

// Resources never watched: core and events.k8s.io events (upstream's default ignored set).
bool IsIgnoredResource(const client::GroupVersionResource& gvr);

class Monitors {
 public:
  Monitors(std::shared_ptr<client::RestClient> client, boost::asio::any_io_executor io,
           MonitorSink sink);
  ~Monitors();

  struct Counts {
    int added = 0, kept = 0, removed = 0;
  };
  // Monitors exactly `resources` (ignored ones left out): new ones made (not started),
  // those no longer listed stopped.
  Counts Sync(const std::vector<client::ApiResource>& resources);
  // Starts the monitors not started yet; how many.
  int StartNew();
  // Some monitors exist, and every one has listed its resource.
  bool IsSynced() const;
  bool IsResourceSynced(const client::GroupVersionResource& gvr) const;
  // The object's metadata from the monitor of `gvr`, if there is one and it has the object.
  std::optional<ObjectMeta> Cached(const client::GroupVersionResource& gvr,
                                   const std::string& namespace_name,
                                   const std::string& name) const;
  std::vector<client::GroupVersionResource> Resources() const;
  size_t size() const { return monitors_.size(); }
  void StopAll();

 private:
  struct Monitor {
    client::ApiResource resource;
    std::shared_ptr<client::SharedInformer> informer;
    bool started = false;
  };
  std::shared_ptr<client::SharedInformer> NewInformer(const client::ApiResource& resource);

  std::shared_ptr<client::RestClient> client_;
  boost::asio::any_io_executor io_;
  MonitorSink sink_;
  std::map<client::GroupVersionResource, Monitor> monitors_;
};

}  // namespace controller::garbagecollector
