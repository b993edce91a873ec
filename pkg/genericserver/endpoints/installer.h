#pragma once
// The REST installer: one handler per group version, serving every resource of it under
// /api/v1/... or /apis/G/V/... by dispatching on the RequestInfo to the verb handlers,
// and describing its resources for discovery. Resources are added before serving.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pkg/genericserver/endpoints/discovery.h"
#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/server/handler.h"
#include "pkg/genericserver/server/lifecycle.h"

namespace endpoints {

class GroupVersionHandler final : public genericserver::Handler {
 public:
  GroupVersionHandler(std::string group, std::string version, genericserver::Lifecycle* lifecycle)
      : group_(std::move(group)), version_(std::move(version)), lifecycle_(lifecycle) {}

  void Add(std::shared_ptr<registry::Store> store);
  // Discovery entries for every resource and subresource, in upstream's form.
  std::vector<APIResource> Resources() const;
  const std::string& Group() const { return group_; }
  const std::string& Version() const { return version_; }
  std::vector<registry::ResourceSpecPtr> Specs() const;

  Awaitable<void> Serve(genericserver::RequestContext& ctx,
                        genericserver::ResponseWriter& out) override;

 private:
  std::string group_;
  std::string version_;
  genericserver::Lifecycle* lifecycle_;
  std::map<std::string, std::shared_ptr<registry::Store>, std::less<>> stores_;  // by plural
};

// The discovery entries of a resource: itself, then one per subresource.
std::vector<APIResource> DiscoveryResources(const registry::ResourceSpec& spec);

}  // namespace endpoints
