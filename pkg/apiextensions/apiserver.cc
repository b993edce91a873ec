#include "pkg/apiextensions/apiserver.h"

namespace apiextensions {

std::unique_ptr<CustomResourceDefinitions> CustomResourceDefinitions::New(
    const genericserver::CompletedConfig& config, genericserver::DelegationTarget& delegate) {
  auto s = std::unique_ptr<CustomResourceDefinitions>(new CustomResourceDefinitions());
  s->generic_ = config.New("apiextensions-apiserver", delegate);
  endpoints::APIGroupInfo group;
  group.group = {"apiextensions.k8s.io", {"v1"}};
  group.resources["v1"] = {};  // customresourcedefinitions arrive with the CRD work
  s->generic_->InstallAPIGroup(std::move(group), {});
  return s;
}

}  // namespace apiextensions
