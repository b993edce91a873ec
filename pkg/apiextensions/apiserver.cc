#include "pkg/apiextensions/apiserver.h"

#include "pkg/apiextensions/controller.h"
#include "pkg/apiextensions/registry/crd.h"
#include "pkg/apiextensions/serving.h"
#include "pkg/genericserver/endpoints/installer.h"

namespace apiextensions {

CustomResourceDefinitions::~CustomResourceDefinitions() = default;

std::unique_ptr<CustomResourceDefinitions> CustomResourceDefinitions::New(
    const genericserver::CompletedConfig& config, genericserver::DelegationTarget& delegate,
    storage::StorageFactory& storage, registry::Admission admission,
    std::function<void(std::shared_ptr<registry::Store>)> made_store) {
  auto s = std::unique_ptr<CustomResourceDefinitions>(new CustomResourceDefinitions());
  s->generic_ = config.New("apiextensions-apiserver", delegate);
  genericserver::Lifecycle* lifecycle = config.Get().lifecycle.get();
  registry::ResourceSpecPtr spec = CustomResourceDefinitionSpec();
  // CustomResourceDefinitions pass the admission chain too (policies guard them).
  auto crds = std::make_shared<registry::Store>(
      spec, storage.ForResource(spec->storage_prefix + "/"), admission);
  auto handler = std::make_unique<endpoints::GroupVersionHandler>(spec->group, "v1", lifecycle);
  handler->Add(crds);
  endpoints::APIGroupInfo group;
  group.group = {spec->group, {"v1"}};
  group.resources["v1"] = handler->Resources();
  group.specs["v1"] = handler->Specs();
  std::map<std::string, genericserver::HandlerPtr> handlers;
  handlers["v1"] = std::move(handler);
  s->generic_->InstallAPIGroup(std::move(group), std::move(handlers));

  s->serving_ =
      std::make_unique<CustomResourceServing>(storage, std::move(admission), lifecycle,
                                              delegate.UnprotectedHandler(), std::move(made_store));
  CustomResourceServing& serving = *s->serving_;
  s->generic_->Mux().HandlePrefix("/apis/", serving.Handler());
  s->generic_->AddDynamicGroups([&serving] { return serving.Groups(); });
  // The watch caches, our informers, start with their resources; this marks that point.
  s->generic_->AddPostStartHook("generic-apiserver-start-informers", genericserver::Done);
  auto progress = std::make_shared<CRDControllerProgress>();
  s->generic_->AddPostStartHook("start-apiextensions-informers",
                                StartCRDController(crds, serving, *lifecycle, progress));
  // Done once every CRD there was at start is served (in discovery), as upstream's
  // discovery controller's first sync.
  s->generic_->AddPostStartHook(
      "start-apiextensions-controllers",
      genericserver::WaitFor([progress] { return progress->served.load(); }));
  s->generic_->AddPostStartHook("crd-informer-synced", genericserver::WaitFor([progress] {
                                  return progress->listed.load();
                                }));
  return s;
}

}  // namespace apiextensions
