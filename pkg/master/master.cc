#include "pkg/master/master.h"

namespace master {

std::unique_ptr<Instance> Instance::New(const genericserver::CompletedConfig& config,
                                        genericserver::DelegationTarget& delegate) {
  auto s = std::unique_ptr<Instance>(new Instance());
  s->generic_ = config.New("kube-apiserver", delegate);
  endpoints::APIGroupInfo core;
  core.group = {"", {"v1"}};
  core.resources["v1"] = {};  // the core resources arrive with the REST machinery
  s->generic_->InstallLegacyAPIGroup(std::move(core));
  return s;
}

}  // namespace master
