#pragma once
// NamespaceLifecycle admission: no new objects in a namespace that does not exist (404)
// or is being deleted (403, cause NamespaceTerminating), as upstream's plugin of that
// name. Deleting the immortal namespaces is refused by the namespace strategy itself.

#include <memory>

#include "pkg/genericserver/registry/store.h"

namespace admission {

// The admission function for a namespaced resource's Store; `namespaces` is the Store of
// core/v1 namespaces and must outlive it.
registry::AdmitFunc NamespaceLifecycle(std::shared_ptr<registry::Store> namespaces);

}  // namespace admission
