#include "pkg/aggregator/aggregator.h"

#include "pkg/aggregator/priority.h"

#include "pkg/genericserver/endpoints/discovery_handler.h"
#include "pkg/genericserver/endpoints/openapi/openapi_v2.h"
#include "pkg/genericserver/endpoints/openapi/openapi_v3.h"

namespace aggregator {

std::unique_ptr<APIAggregator> APIAggregator::New(const genericserver::CompletedConfig& config,
                                                  genericserver::DelegationTarget& delegate,
                                                  storage::StorageFactory& storage,
                                                  const Config& aggregator) {
  (void)storage;
  (void)aggregator;
  auto s = std::unique_ptr<APIAggregator>(new APIAggregator());
  s->generic_ = config.New("kube-aggregator", delegate);
  endpoints::APIGroupInfo group;
  group.group = {"apiregistration.k8s.io", {"v1"}};
  group.resources["v1"] = {};  // apiservices arrive with the aggregator work
  s->generic_->InstallAPIGroup(std::move(group), {});

  // The group list of the whole chain, in upstream's priority order. Computed per request:
  // delegates may add groups (CRDs).
  genericserver::GenericAPIServer& server = *s->generic_;
  endpoints::DiscoveryDocuments documents;
  auto named_groups = [&server] {
    std::vector<endpoints::APIGroupInfo> named;
    for (auto& info : server.ListedGroups()) {
      if (!info.group.name.empty()) named.push_back(std::move(info));
    }
    SortByPriority(named);
    return named;
  };
  documents.legacy = [named_groups] {
    std::vector<endpoints::APIGroup> groups;
    for (auto& info : named_groups()) groups.push_back(std::move(info.group));
    return endpoints::EncodeAPIGroupList(groups);
  };
  documents.groups = named_groups;
  server.Mux().Handle("/apis", endpoints::NewDiscoveryHandler(std::move(documents)));
  // OpenAPI v3 of every group of the chain, the legacy core group included.
  endpoints::openapi::InstallOpenAPIV3(server.Mux(), [&server] { return server.ListedGroups(); });
  endpoints::openapi::InstallOpenAPIV2(server.Mux(), [&server] { return server.ListedGroups(); });
  return s;
}

}  // namespace aggregator
