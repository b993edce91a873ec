#include "cmd/kube-apiserver/app/server.h"

#include "pkg/genericserver/admission/namespace_lifecycle.h"
#include "pkg/master/registry/resources.h"

namespace app {

// Built bottom-up: each server takes the one behind it as its delegate.
ServerChain CreateServerChain(const genericserver::CompletedConfig& config,
                              storage::StorageFactory& storage, const master::Config& master,
                              const aggregator::Config& aggregator) {
  ServerChain chain;
  chain.not_found = std::make_unique<genericserver::EmptyDelegate>();
  // Custom resources pass the namespace lifecycle admission, as built-in ones do.
  auto namespaces = std::make_shared<registry::Store>(
      master::resources::Namespaces(),
      storage.ForResource(master::resources::Namespaces()->storage_prefix + "/"));
  chain.extensions = apiextensions::CustomResourceDefinitions::New(
      config, *chain.not_found, storage, admission::NamespaceLifecycle(namespaces));
  chain.master = master::Instance::New(config, chain.extensions->GenericServer(), storage, master);
  chain.aggregator =
      aggregator::APIAggregator::New(config, chain.master->GenericServer(), storage, aggregator);
  return chain;
}

}  // namespace app
