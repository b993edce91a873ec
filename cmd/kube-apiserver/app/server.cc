#include "cmd/kube-apiserver/app/server.h"

#include "pkg/genericserver/admission/plugin.h"
#include "pkg/genericserver/registry/service_resolver.h"
#include "pkg/plugin/admission/plugins.h"

namespace app {

// Built bottom-up: each server takes the one behind it as its delegate.
ServerChain CreateServerChain(const genericserver::CompletedConfig& config,
                              storage::StorageFactory& storage, const master::Config& master,
                              const aggregator::Config& aggregator) {
  ServerChain chain;
  chain.not_found = std::make_unique<genericserver::EmptyDelegate>();
  // One admission chain for built-in and custom resources; its plugins read the master's
  // stores, registered as the master makes them.
  master::Config with_admission = master;
  with_admission.admission_stores = std::make_shared<admission::Stores>();
  plugin::admission::PluginSettings settings;
  settings.default_not_ready_toleration_seconds = master.default_not_ready_toleration_seconds;
  settings.default_unreachable_toleration_seconds = master.default_unreachable_toleration_seconds;
  settings.configs = master.admission_plugin_configs;
  settings.resolve_service = [resolver = std::make_shared<registry::ServiceResolver>(storage)](
                                 std::string ns, std::string name, int port) {
    return resolver->Resolve(std::move(ns), std::move(name), port);
  };
  with_admission.admission = admission::Chain(
      plugin::admission::NewPlugins(master.admission_plugins, with_admission.admission_stores,
                                    config.Get().authorizer, settings));
  chain.extensions = apiextensions::CustomResourceDefinitions::New(
      config, *chain.not_found, storage, with_admission.admission,
      [stores = with_admission.admission_stores](std::shared_ptr<registry::Store> store) {
        stores->Add(std::move(store));
      });
  chain.master =
      master::Instance::New(config, chain.extensions->GenericServer(), storage, with_admission);
  aggregator::Config with_aggregator_admission = aggregator;
  with_aggregator_admission.admission = with_admission.admission;
  chain.aggregator = aggregator::APIAggregator::New(config, chain.master->GenericServer(), storage,
                                                    with_aggregator_admission);
  return chain;
}

}  // namespace app
