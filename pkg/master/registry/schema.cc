#include "pkg/master/registry/schema.h"

#include "pkg/master/schemas/schemas.h"

namespace master::resources {

registry::ResourceSpecPtr Finish(std::shared_ptr<registry::ResourceSpec> spec) {
  if (auto name = schemas::SchemaNameForKind(spec->group, spec->version, spec->kind)) {
    spec->schema_name = *name;
    spec->components = schemas::Components(spec->GroupVersion());
  }
  spec->Complete();
  return spec;
}

}  // namespace master::resources
