#include "pkg/controller/garbagecollector/monitors.h"

#include <set>

#include <nlohmann/json.hpp>

#include "pkg/util/log.h"

namespace controller::garbagecollector {

bool IsIgnoredResource(const client::GroupVersionResource& gvr) {
  return gvr.resource == "events" && (gvr.group.empty() || gvr.group == "events.k8s.io");
}

Monitors::Monitors(std::shared_ptr<client::RestClient> client, boost::asio::any_io_executor io,
                   MonitorSink sink)
    : client_(std::move(client)), io_(std::move(io)), sink_(std::move(sink)) {}

Monitors::~Monitors() { StopAll(); }

std::shared_ptr<client::SharedInformer> Monitors::NewInformer(const client::ApiResource& resource) {
  client::InformerOptions options;
  options.metadata_only = true;
  auto informer = client::SharedInformer::New(client_, resource.gvr, options, io_);
  const std::string api_version = resource.gvr.GroupVersion();
  const std::string kind = resource.kind;
  MonitorSink sink = sink_;
  client::ResourceEventHandler handler;
  handler.on_add = [sink, api_version, kind](const client::ObjectPtr& o) {
    sink(MonitorEvent{EventType::kAdd, api_version, kind, o, nullptr});
  };
  handler.on_update = [sink, api_version, kind](const client::ObjectPtr& old_object,
                                                const client::ObjectPtr& o) {
    sink(MonitorEvent{EventType::kUpdate, api_version, kind, o, old_object});
  };
  handler.on_delete = [sink, api_version, kind](const client::ObjectPtr& o) {
    sink(MonitorEvent{EventType::kDelete, api_version, kind, o, nullptr});
  };
  informer->AddEventHandler(std::move(handler));
  return informer;
}

Monitors::Counts Monitors::Sync(const std::vector<client::ApiResource>& resources) {
  Counts counts;
  std::map<client::GroupVersionResource, Monitor> current;
  for (const client::ApiResource& r : resources) {
    if (IsIgnoredResource(r.gvr) || current.contains(r.gvr)) continue;
    if (auto it = monitors_.find(r.gvr); it != monitors_.end()) {
      current.emplace(r.gvr, std::move(it->second));
      monitors_.erase(it);
      ++counts.kept;
      continue;
    }
    current.emplace(r.gvr, Monitor{r, NewInformer(r), false});
    ++counts.added;
  }
  for (auto& [gvr, m] : monitors_) {
    if (m.started) m.informer->Stop();
    ++counts.removed;
  }
  monitors_ = std::move(current);
  KLOG_V(4) << "\"synced monitors\" added=" << counts.added << " kept=" << counts.kept
            << " removed=" << counts.removed;
  return counts;
}

int Monitors::StartNew() {
  int started = 0;
  for (auto& [gvr, m] : monitors_) {
    if (m.started) continue;
    m.informer->Start();
    m.started = true;
    ++started;
  }
  KLOG_V(4) << "\"started new monitors\" new=" << started << " current=" << monitors_.size();
  return started;
}

bool Monitors::IsSynced() const {
  if (monitors_.empty()) {
    KLOG_V(4) << "\"garbage controller monitor not synced: no monitors\"";
    return false;
  }
  for (const auto& [gvr, m] : monitors_) {
    if (!m.informer->HasSynced()) {
      KLOG_V(4) << "\"garbage controller monitor not yet synced\" resource=\"" << gvr.String()
                << "\"";
      return false;
    }
  }
  return true;
}

bool Monitors::IsResourceSynced(const client::GroupVersionResource& gvr) const {
  auto it = monitors_.find(gvr);
  return it != monitors_.end() && it->second.informer->HasSynced();
}

std::optional<ObjectMeta> Monitors::Cached(const client::GroupVersionResource& gvr,
                                           const std::string& namespace_name,
                                           const std::string& name) const {
  auto it = monitors_.find(gvr);
  if (it == monitors_.end()) return std::nullopt;
  client::ObjectPtr o =
      it->second.informer->Get(namespace_name.empty() ? name : namespace_name + "/" + name);
  if (!o) return std::nullopt;
  return ParseObjectMeta(*o);
}

std::vector<client::GroupVersionResource> Monitors::Resources() const {
  std::vector<client::GroupVersionResource> out;
  for (const auto& [gvr, m] : monitors_) out.push_back(gvr);
  return out;
}

void Monitors::StopAll() {
  for (auto& [gvr, m] : monitors_) {
    if (m.started) m.informer->Stop();
  }
}

}  // namespace controller::garbagecollector
