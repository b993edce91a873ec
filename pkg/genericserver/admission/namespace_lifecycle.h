#pragma once
// NamespaceLifecycle admission: no new objects in a namespace that does not exist (404)
// or is being deleted (403, cause NamespaceTerminating), as upstream's plugin of that
// name, in the mutating phase as upstream runs it. Deleting the immortal namespaces is
// refused by the namespace strategy itself.

#include <memory>

#include "pkg/genericserver/admission/plugin.h"
#include "pkg/genericserver/admission/stores.h"

namespace admission {

// Reads the namespaces from `stores`.
PluginPtr NewNamespaceLifecycle(std::shared_ptr<const Stores> stores);

}  // namespace admission
