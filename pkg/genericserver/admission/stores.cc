#include "pkg/genericserver/admission/stores.h"

namespace admission {

void Stores::Add(std::shared_ptr<registry::Store> store) {
  const registry::ResourceSpec& spec = store->Spec();
  std::string resource = spec.group.empty() ? spec.plural : spec.plural + "." + spec.group;
  std::lock_guard lock(mu_);
  stores_[std::move(resource)] = std::move(store);
}

std::shared_ptr<registry::Store> Stores::Get(std::string_view resource) const {
  std::lock_guard lock(mu_);
  auto it = stores_.find(resource);
  return it == stores_.end() ? nullptr : it->second;
}

}  // namespace admission
