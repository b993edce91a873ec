#pragma once
// The namespaces every cluster has: default, kube-system, kube-public and
// kube-node-lease, created after start-up when missing (upstream's bootstrap and
// system-namespaces controllers).

#include <memory>

#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/server/hooks.h"

namespace master::bootstrap {

inline constexpr const char* kSystemNamespaces[] = {"default", "kube-system", "kube-public",
                                                    "kube-node-lease"};

// The post-start hook creating them; `namespaces` is the namespaces Store.
genericserver::PostStartHookFunc SystemNamespaces(std::shared_ptr<registry::Store> namespaces);

}  // namespace master::bootstrap
