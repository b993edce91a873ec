#pragma once
// Attaches a built-in kind's OpenAPI schema (from the embedded upstream documents) to
// its ResourceSpec and completes it.

#include <memory>

#include "pkg/genericserver/registry/resource_spec.h"

namespace master::resources {

registry::ResourceSpecPtr Finish(std::shared_ptr<registry::ResourceSpec> spec);

}  // namespace master::resources
