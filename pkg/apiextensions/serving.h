#pragma once
// The custom resources being served: per established CRD, one Store per served version
// (over the watch cache of the CRD's storage prefix, other versions converted to and from
// the storage version), dispatched under /apis/<group>/<version>/... by the handler, and
// described to discovery and OpenAPI by Groups(). Changes swap in a new snapshot built
// from the old one, rebuilding only the CRD's own group; requests in flight keep theirs.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/endpoints/discovery.h"
#include "pkg/genericserver/registry/service_resolver.h"
#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/server/handler.h"
#include "pkg/genericserver/server/lifecycle.h"
#include "pkg/genericserver/storage/factory.h"

namespace apiextensions {

class CustomResourceServing {
 public:
  // storage, lifecycle and not_found (answers what no CRD serves) must outlive this;
  // made_store (may be null) is told of each Store made.
  CustomResourceServing(storage::StorageFactory& storage, registry::Admission admission,
                        genericserver::Lifecycle* lifecycle, genericserver::Handler& not_found,
                        std::function<void(std::shared_ptr<registry::Store>)> made_store);
  ~CustomResourceServing();

  // Serves the CRD's served versions as the CRD now says (replacing what was served for
  // it). An error when it cannot be served (names not accepted).
  std::expected<void, std::string> Serve(const nlohmann::json& crd);
  // Stops serving the CRD `name` (no-op when not served).
  void Remove(const std::string& name);
  // Creates of the CRD's resources are refused from now on (it is being deleted).
  void MarkTerminating(const std::string& name);
  // The Store of the CRD's storage version: what its instances are deleted through. Null
  // when it is not served.
  std::shared_ptr<registry::Store> StorageStore(const std::string& name) const;

  // Serves /apis/<group>, /apis/<group>/<version> and everything below for CRD groups.
  genericserver::HandlerPtr Handler();
  // The groups served, for discovery and OpenAPI (versions in upstream's priority order).
  std::vector<endpoints::APIGroupInfo> Groups() const;

  struct Snapshot;

 private:
  std::shared_ptr<const Snapshot> Current() const;
  // Rebuilds the entry of `group` in `next` from the CRDs served in it.
  void RebuildGroup(Snapshot& next, const std::string& group) const;

  storage::StorageFactory& storage_;
  registry::Admission admission_;
  std::function<void(std::shared_ptr<registry::Store>)> made_store_;
  genericserver::Lifecycle* lifecycle_;
  genericserver::Handler& not_found_;
  std::shared_ptr<const registry::ServiceResolver> resolver_;  // for conversion webhooks
  mutable std::mutex mu_;                                      // guards snapshot_ and writers
  std::shared_ptr<const Snapshot> snapshot_;
};

}  // namespace apiextensions
