#include "test/unit/endpoints/openapi/specs.h"

#include "pkg/master/schemas/schemas.h"

namespace openapi_test {

registry::ResourceSpecPtr MakeSpec(SpecArgs args) {
  auto spec = std::make_shared<registry::ResourceSpec>();
  spec->group = args.group;
  spec->version = args.version;
  spec->kind = args.kind;
  spec->plural = args.plural;
  spec->namespaced = args.namespaced;
  spec->verbs = args.verbs;
  spec->subresources = args.subresources;
  if (args.with_schema) {
    if (auto name = schemas::SchemaNameForKind(args.group, args.version, args.kind)) {
      spec->schema_name = *name;
      spec->components = schemas::Components(spec->GroupVersion());
    }
  }
  spec->Complete();
  return spec;
}

registry::ResourceSpecPtr ConfigMaps() {
  return MakeSpec({.group = "", .version = "v1", .kind = "ConfigMap", .plural = "configmaps"});
}

registry::ResourceSpecPtr Namespaces() {
  return MakeSpec(
      {.group = "",
       .version = "v1",
       .kind = "Namespace",
       .plural = "namespaces",
       .namespaced = false,
       .verbs = {"create", "delete", "get", "list", "patch", "update", "watch"},
       .subresources = {{"finalize", {"", "v1", "Namespace"}, {"update"}, nullptr},
                        {"status", {"", "v1", "Namespace"}, {"get", "patch", "update"}, nullptr}}});
}

registry::ResourceSpecPtr Secrets() {
  return MakeSpec({.group = "", .version = "v1", .kind = "Secret", .plural = "secrets"});
}

registry::ResourceSpecPtr Leases() {
  return MakeSpec(
      {.group = "coordination.k8s.io", .version = "v1", .kind = "Lease", .plural = "leases"});
}

registry::ResourceSpecPtr Widgets() {
  return MakeSpec(
      {.group = "example.com",
       .version = "v1",
       .kind = "Widget",
       .plural = "widgets",
       .subresources =
           {{"status", {"example.com", "v1", "Widget"}, {"get", "patch", "update"}, nullptr},
            {"scale", {"autoscaling", "v1", "Scale"}, {"get", "patch", "update"}, nullptr}},
       .with_schema = false});
}

endpoints::APIGroupInfo Group(const std::string& name, const std::string& version,
                              std::vector<registry::ResourceSpecPtr> specs) {
  endpoints::APIGroupInfo info;
  info.group.name = name;
  info.group.versions = {version};
  info.specs[version] = std::move(specs);
  return info;
}

}  // namespace openapi_test
