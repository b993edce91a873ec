#pragma once
// The apiextensions server: apiextensions.k8s.io (customresourcedefinitions) and every
// group its CRDs define, served as the CRD controller establishes them. Last in the
// delegation chain; what it does not serve reaches the 404 at the chain's end.

#include <functional>
#include <memory>

#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/server/config.h"
#include "pkg/genericserver/server/generic_apiserver.h"
#include "pkg/genericserver/storage/factory.h"

namespace apiextensions {

class CustomResourceServing;

class CustomResourceDefinitions {
 public:
  // The delegate and the storage must outlive the server. `admission` is the admission
  // chain custom resources pass through, as built-in ones do; `made_store` (optional) is
  // told of every custom resource Store as it is made (admission reads parameters there).
  static std::unique_ptr<CustomResourceDefinitions> New(
      const genericserver::CompletedConfig& config, genericserver::DelegationTarget& delegate,
      storage::StorageFactory& storage, registry::Admission admission,
      std::function<void(std::shared_ptr<registry::Store>)> made_store = nullptr);
  ~CustomResourceDefinitions();
  genericserver::GenericAPIServer& GenericServer() { return *generic_; }

 private:
  CustomResourceDefinitions() = default;
  std::unique_ptr<CustomResourceServing> serving_;
  std::unique_ptr<genericserver::GenericAPIServer> generic_;
};

}  // namespace apiextensions
