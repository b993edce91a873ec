#include "cmd/kube-apiserver/app/server.h"

namespace app {

// Built bottom-up: each server takes the one behind it as its delegate.
ServerChain CreateServerChain(const genericserver::CompletedConfig& config,
                              storage::StorageFactory& storage, const master::Config& master) {
  ServerChain chain;
  chain.not_found = std::make_unique<genericserver::EmptyDelegate>();
  chain.extensions = apiextensions::CustomResourceDefinitions::New(config, *chain.not_found);
  chain.master = master::Instance::New(config, chain.extensions->GenericServer(), storage, master);
  chain.aggregator = aggregator::APIAggregator::New(config, chain.master->GenericServer());
  return chain;
}

}  // namespace app
