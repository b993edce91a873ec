#include "pkg/master/master.h"

#include "pkg/genericserver/admission/namespace_lifecycle.h"
#include "pkg/genericserver/endpoints/installer.h"
#include "pkg/master/bootstrap/system_namespaces.h"
#include "pkg/master/registry/resources.h"

namespace master {
namespace {

// A group-version handler and its discovery description, ready to install.
struct GroupVersion {
  endpoints::APIGroupInfo info;
  std::map<std::string, genericserver::HandlerPtr> handlers;
};

GroupVersion MakeGroupVersion(std::unique_ptr<endpoints::GroupVersionHandler> handler) {
  GroupVersion gv;
  const std::string version = handler->Version();
  gv.info.group = {handler->Group(), {version}};
  gv.info.resources[version] = handler->Resources();
  gv.info.specs[version] = handler->Specs();
  gv.handlers[version] = std::move(handler);
  return gv;
}

}  // namespace

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
  genericserver::Lifecycle* lifecycle = config.Get().lifecycle.get();
  auto store = [&storage](registry::ResourceSpecPtr spec, registry::AdmitFunc admit) {
    auto cache = storage.ForResource(spec->storage_prefix + "/");
    return std::make_shared<registry::Store>(std::move(spec), std::move(cache), std::move(admit));
  };
  auto namespaces = store(resources::Namespaces(), nullptr);
  registry::AdmitFunc namespace_lifecycle = admission::NamespaceLifecycle(namespaces);

  auto core = std::make_unique<endpoints::GroupVersionHandler>("", "v1", lifecycle);
  core->Add(namespaces);
  for (auto& spec : {resources::ConfigMaps(), resources::Secrets(), resources::Events(),
                     resources::ServiceAccounts()}) {
    core->Add(store(spec, namespace_lifecycle));
  }
  GroupVersion legacy = MakeGroupVersion(std::move(core));
  s->generic_->InstallLegacyAPIGroup(std::move(legacy.info), std::move(legacy.handlers));

  auto coordination =
      std::make_unique<endpoints::GroupVersionHandler>("coordination.k8s.io", "v1", lifecycle);
  coordination->Add(store(resources::Leases(), namespace_lifecycle));
  GroupVersion leases = MakeGroupVersion(std::move(coordination));
  s->generic_->InstallAPIGroup(std::move(leases.info), std::move(leases.handlers));

  s->generic_->AddPostStartHook("start-system-namespaces-controller",
                                bootstrap::SystemNamespaces(namespaces));
  return s;
}

}  // namespace master
