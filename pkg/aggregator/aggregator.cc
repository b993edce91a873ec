#include "pkg/aggregator/aggregator.h"

#include "pkg/genericserver/server/responses.h"

namespace aggregator {

std::unique_ptr<APIAggregator> APIAggregator::New(const genericserver::CompletedConfig& config,
                                                  genericserver::DelegationTarget& delegate) {
  auto s = std::unique_ptr<APIAggregator>(new APIAggregator());
  s->generic_ = config.New("kube-aggregator", delegate);
  endpoints::APIGroupInfo group;
  group.group = {"apiregistration.k8s.io", {"v1"}};
  group.resources["v1"] = {};  // apiservices arrive with the aggregator work
  s->generic_->InstallAPIGroup(std::move(group));

  // The group list of the whole chain: the aggregator's own groups first, then the
  // delegates' in chain order. Computed per request: delegates may add groups (CRDs).
  genericserver::GenericAPIServer& server = *s->generic_;
  server.Mux().Handle(
      "/apis", genericserver::MakeHandler(
                   [&server](genericserver::RequestContext&, genericserver::ResponseWriter& out) {
                     return genericserver::WriteJSON(
                         out, 200, endpoints::EncodeAPIGroupList(server.ListedGroups()));
                   }));
  return s;
}

}  // namespace aggregator
