#pragma once
// The built-in resources of the master server, one ResourceSpec each (spec, strategy,
// table columns, selectable fields, schema).

#include "pkg/genericserver/registry/resource_spec.h"

namespace master::resources {

// core/v1
registry::ResourceSpecPtr Namespaces();
registry::ResourceSpecPtr ConfigMaps();
registry::ResourceSpecPtr Secrets();
registry::ResourceSpecPtr Events();
registry::ResourceSpecPtr ServiceAccounts();
// coordination.k8s.io/v1
registry::ResourceSpecPtr Leases();

}  // namespace master::resources
