#include "pkg/master/master.h"

namespace master {

std::unique_ptr<Instance> Instance::New(const genericserver::CompletedConfig& config,
                                        genericserver::DelegationTarget& delegate,
                                        storage::StorageFactory& storage) {
  auto s = std::unique_ptr<Instance>(new Instance());
  s->generic_ = config.New("kube-apiserver", delegate);
  // Named "etcd" whatever the backend, as upstream names its storage check.
  s->generic_->AddHealthChecks({{"etcd", [&storage]() -> std::expected<void, std::string> {
                                   auto healthy = storage.Healthy();
                                   if (!healthy) return std::unexpected(healthy.error().message);
                                   return {};
                                 }}});
  endpoints::APIGroupInfo core;
  core.group = {"", {"v1"}};
  core.resources["v1"] = {};  // the core resources arrive with the REST machinery
  s->generic_->InstallLegacyAPIGroup(std::move(core));
  return s;
}

}  // namespace master
