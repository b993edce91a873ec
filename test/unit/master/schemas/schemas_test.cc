#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/master/schemas/descriptions.h"
#include "pkg/master/schemas/schemas.h"

using nlohmann::json;

namespace {

const char* const kRefPrefix = "#/components/schemas/";

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// The schema named `name` in `gv`'s components; fails the test when it is missing.
const json& SchemaIn(std::string_view gv, const std::string& name) {
  const json* components = schemas::Components(gv);
  REQUIRE(components != nullptr);
  INFO(name);
  REQUIRE(components->contains(name));
  return components->at(name);
}

json Gvk(const std::string& group, const std::string& version, const std::string& kind) {
  return json::array({{{"group", group}, {"kind", kind}, {"version", version}}});
}

// Appends to `found` the path of every "description" keyword. Keys of a "properties" map are
// field names (PriorityClass has a field called "description"), so those are not keywords.
void FindDescriptions(const json& value, bool field_names, const std::string& at,
                      std::vector<std::string>& found) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      if (!field_names && key == "description") found.push_back(at + "/description");
      FindDescriptions(child, !field_names && key == "properties", at + "/" + key, found);
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      FindDescriptions(value[i], false, at + "/" + std::to_string(i), found);
    }
  }
}

void FindRefs(const json& value, std::vector<std::string>& refs) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      if (key == "$ref" && child.is_string()) {
        refs.push_back(child.get<std::string>());
      } else {
        FindRefs(child, refs);
      }
    }
  } else if (value.is_array()) {
    for (const json& child : value) FindRefs(child, refs);
  }
}

}  // namespace

TEST_CASE("schemas: the group-versions of upstream v1.26.1", "[schemas]") {
  CHECK(schemas::UpstreamVersion() == "v1.26.1");
  auto gvs = schemas::GroupVersions();
  CHECK(std::is_sorted(gvs.begin(), gvs.end()));
  CHECK(std::adjacent_find(gvs.begin(), gvs.end()) == gvs.end());
  for (const char* gv : {"v1", "apps/v1", "batch/v1", "coordination.k8s.io/v1",
                         "rbac.authorization.k8s.io/v1", "apiextensions.k8s.io/v1"}) {
    INFO(gv);
    CHECK(Contains(gvs, gv));
  }
  CHECK_FALSE(Contains(gvs, "apps"));  // group documents are not group-versions
}

TEST_CASE("schemas: every document parses once, and unknown ones are null", "[schemas]") {
  for (const std::string& gv : schemas::GroupVersions()) {
    INFO(gv);
    const json* components = schemas::Components(gv);
    REQUIRE(components != nullptr);
    CHECK(components->is_object());
    CHECK_FALSE(components->empty());
    CHECK(schemas::Components(gv) == components);
  }
  CHECK(schemas::Components("") == nullptr);
  CHECK(schemas::Components("nope.example.com/v1") == nullptr);
  CHECK(schemas::Components("apps") == nullptr);
}

TEST_CASE("schemas: documents load concurrently to the same objects", "[schemas]") {
  auto gvs = schemas::GroupVersions();
  std::vector<std::vector<const json*>> seen(4);
  std::vector<std::thread> threads;
  for (auto& mine : seen) {
    threads.emplace_back([&gvs, &mine] {
      for (const std::string& gv : gvs) mine.push_back(schemas::Components(gv));
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& mine : seen) CHECK(mine == seen.front());
}

TEST_CASE("schemas: core v1 and coordination kinds", "[schemas]") {
  struct Case {
    std::string group, version, kind, schema;
    std::vector<std::string> properties;
  };
  const std::vector<Case> cases = {
      {"",
       "v1",
       "ConfigMap",
       "io.k8s.api.core.v1.ConfigMap",
       {"apiVersion", "kind", "metadata", "data", "binaryData", "immutable"}},
      {"",
       "v1",
       "Secret",
       "io.k8s.api.core.v1.Secret",
       {"apiVersion", "kind", "metadata", "data", "stringData", "type", "immutable"}},
      {"",
       "v1",
       "Namespace",
       "io.k8s.api.core.v1.Namespace",
       {"apiVersion", "kind", "metadata", "spec", "status"}},
      {"",
       "v1",
       "Event",
       "io.k8s.api.core.v1.Event",
       {"metadata", "involvedObject", "reason", "message", "source", "count", "type",
        "firstTimestamp", "lastTimestamp", "eventTime", "reportingComponent"}},
      {"coordination.k8s.io",
       "v1",
       "Lease",
       "io.k8s.api.coordination.v1.Lease",
       {"apiVersion", "kind", "metadata", "spec"}},
  };
  for (const Case& c : cases) {
    INFO(c.kind);
    auto name = schemas::SchemaNameForKind(c.group, c.version, c.kind);
    REQUIRE(name.has_value());
    CHECK(*name == c.schema);
    const std::string gv = c.group.empty() ? c.version : c.group + "/" + c.version;
    const json& schema = SchemaIn(gv, c.schema);
    CHECK(schema["type"] == "object");
    CHECK(schema["x-kubernetes-group-version-kind"] == Gvk(c.group, c.version, c.kind));
    for (const std::string& property : c.properties) {
      INFO(property);
      CHECK(schema["properties"].contains(property));
    }
    CHECK(Contains(schemas::Kinds(gv), c.kind));
    CHECK(Contains(schemas::Kinds(gv), c.kind + "List"));
  }

  const json& config_map = SchemaIn("v1", "io.k8s.api.core.v1.ConfigMap");
  json data = config_map["properties"]["data"];
  data.erase("description");  // the project's own (descriptions.h)
  CHECK(data ==
        json::parse(R"({"additionalProperties":{"default":"","type":"string"},"type":"object"})"));
  CHECK(config_map["properties"]["binaryData"]["additionalProperties"]["format"] == "byte");
  CHECK(config_map["properties"]["metadata"]["allOf"][0]["$ref"] ==
        "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  CHECK(SchemaIn("v1", "io.k8s.api.core.v1.Event")["required"] ==
        json::array({"metadata", "involvedObject"}));

  const json& lease_spec =
      SchemaIn("coordination.k8s.io/v1", "io.k8s.api.coordination.v1.LeaseSpec");
  json duration = lease_spec["properties"]["leaseDurationSeconds"];
  duration.erase("description");
  CHECK(duration == json::parse(R"({"format":"int32","type":"integer"})"));
  CHECK(lease_spec["properties"]["holderIdentity"]["type"] == "string");
  CHECK(SchemaIn("coordination.k8s.io/v1", "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime") ==
        json::parse(R"({"format":"date-time","type":"string"})"));
}

TEST_CASE("schemas: no upstream description, only the project's own", "[schemas]") {
  // The project's descriptions, as "/<schema>/description" or
  // "/<schema>/properties/<field>/description".
  std::set<std::string> own;
  for (const schemas::Description& d : schemas::Descriptions()) {
    own.insert("/" + std::string(d.schema) +
               (d.field.empty() ? "" : "/properties/" + std::string(d.field)) + "/description");
  }
  size_t served = 0;
  for (const std::string& gv : schemas::GroupVersions()) {
    INFO(gv);
    std::vector<std::string> found;
    FindDescriptions(*schemas::Components(gv), /*field_names=*/true, "", found);
    for (const std::string& path : found) {
      INFO(path);
      CHECK(own.contains(path));
    }
    served += found.size();
  }
  CHECK(served >= own.size());  // each of them is somewhere
  CHECK(SchemaIn("v1", "io.k8s.api.core.v1.ConfigMap")["properties"]["data"]["description"]
            .get<std::string>()
            .starts_with("UTF-8 values by key"));
  // Fields called "description" are structure, and stay.
  CHECK(SchemaIn("scheduling.k8s.io/v1",
                 "io.k8s.api.scheduling.v1.PriorityClass")["properties"]["description"] ==
        json::parse(R"({"type":"string"})"));
}

TEST_CASE("schemas: every $ref resolves within its document", "[schemas]") {
  for (const std::string& gv : schemas::GroupVersions()) {
    INFO(gv);
    const json& components = *schemas::Components(gv);
    std::vector<std::string> refs;
    FindRefs(components, refs);
    CHECK_FALSE(refs.empty());
    for (const std::string& ref : refs) {
      INFO(ref);
      REQUIRE(ref.starts_with(kRefPrefix));
      CHECK(components.contains(ref.substr(std::string_view(kRefPrefix).size())));
    }
  }
}

TEST_CASE("schemas: the x-kubernetes extensions upstream has", "[schemas]") {
  const json& pod_spec = SchemaIn("v1", "io.k8s.api.core.v1.PodSpec");
  CHECK(pod_spec["properties"]["containers"]["x-kubernetes-patch-merge-key"] == "name");
  CHECK(pod_spec["properties"]["containers"]["x-kubernetes-patch-strategy"] == "merge");
  CHECK(pod_spec["properties"]["volumes"]["x-kubernetes-patch-strategy"] == "merge,retainKeys");
  CHECK(pod_spec["required"] == json::array({"containers"}));

  const json& container = SchemaIn("v1", "io.k8s.api.core.v1.Container");
  CHECK(container["properties"]["env"]["x-kubernetes-patch-merge-key"] == "name");
  CHECK(container["properties"]["ports"]["x-kubernetes-list-type"] == "map");
  CHECK(container["properties"]["ports"]["x-kubernetes-list-map-keys"] ==
        json::array({"containerPort", "protocol"}));
  CHECK(container["properties"]["imagePullPolicy"]["enum"] ==
        json::array({"Always", "IfNotPresent", "Never"}));

  const json& meta = SchemaIn("v1", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  CHECK(meta["properties"]["finalizers"]["x-kubernetes-patch-strategy"] == "merge");
  CHECK(meta["properties"]["ownerReferences"]["x-kubernetes-patch-merge-key"] == "uid");
  CHECK(SchemaIn("v1",
                 "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector")["x-kubernetes-map-type"] ==
        "atomic");

  const json& conditions =
      SchemaIn("apps/v1", "io.k8s.api.apps.v1.DeploymentStatus")["properties"]["conditions"];
  CHECK(conditions["x-kubernetes-patch-merge-key"] == "type");

  const json& int_or_string =
      SchemaIn("apps/v1", "io.k8s.apimachinery.pkg.util.intstr.IntOrString");
  CHECK(int_or_string["format"] == "int-or-string");
  CHECK(int_or_string["oneOf"] == json::parse(R"([{"type":"integer"},{"type":"string"}])"));

  CHECK(SchemaIn("v1", "io.k8s.api.core.v1.SeccompProfile")["x-kubernetes-unions"] ==
        json::parse(R"([{"discriminator":"type",
                         "fields-to-discriminateBy":{"localhostProfile":"LocalhostProfile"}}])"));

  // The CRD schema type names the extensions as fields.
  const json& props = SchemaIn(
      "apiextensions.k8s.io/v1",
      "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps")["properties"];
  for (const char* field : {"x-kubernetes-preserve-unknown-fields", "x-kubernetes-int-or-string",
                            "x-kubernetes-embedded-resource", "x-kubernetes-validations",
                            "description", "properties", "$ref"}) {
    INFO(field);
    CHECK(props.contains(field));
  }
}

TEST_CASE("schemas: kinds resolve to schemas in their documents", "[schemas]") {
  for (const std::string& gv : schemas::GroupVersions()) {
    INFO(gv);
    auto kinds = schemas::Kinds(gv);
    CHECK(std::is_sorted(kinds.begin(), kinds.end()));
    std::string group = gv.find('/') == std::string::npos ? "" : gv.substr(0, gv.find('/'));
    std::string version = gv.substr(gv.find('/') + 1);
    for (const std::string& kind : kinds) {
      INFO(kind);
      auto name = schemas::SchemaNameForKind(group, version, kind);
      REQUIRE(name.has_value());
      CHECK(schemas::Components(gv)->contains(*name));
    }
  }
  CHECK(schemas::SchemaNameForKind("apps", "v1", "Deployment") == "io.k8s.api.apps.v1.Deployment");
  CHECK(schemas::SchemaNameForKind("", "v1", "Deployment") == std::nullopt);
  CHECK(schemas::SchemaNameForKind("", "v2", "ConfigMap") == std::nullopt);
  // Served only as subresources of other group-versions.
  CHECK(schemas::SchemaNameForKind("policy", "v1", "Eviction") == "io.k8s.api.policy.v1.Eviction");
  CHECK(schemas::SchemaNameForKind("autoscaling", "v1", "Scale") ==
        "io.k8s.api.autoscaling.v1.Scale");
  CHECK_FALSE(Contains(schemas::Kinds("v1"), "Eviction"));
  CHECK(schemas::Kinds("nope/v1").empty());
}

TEST_CASE("schemas: resources from the paths", "[schemas]") {
  auto find = [](std::string_view gv, const std::string& name) {
    for (auto& r : schemas::Resources(gv)) {
      if (r.name == name) return r;
    }
    FAIL("no resource " << name << " in " << gv);
    return schemas::Resource{};
  };
  const std::vector<std::string> all = {"create", "delete", "deletecollection", "get",
                                        "list",   "patch",  "update",           "watch"};

  auto config_maps = find("v1", "configmaps");
  CHECK(config_maps.namespaced);
  CHECK(config_maps.group == "");
  CHECK(config_maps.kind == "ConfigMap");
  CHECK(config_maps.schema == "io.k8s.api.core.v1.ConfigMap");
  CHECK(config_maps.verbs == all);

  auto namespaces = find("v1", "namespaces");
  CHECK_FALSE(namespaces.namespaced);
  CHECK(namespaces.verbs ==
        std::vector<std::string>{"create", "delete", "get", "list", "patch", "update", "watch"});
  CHECK(find("v1", "namespaces/finalize").verbs == std::vector<std::string>{"update"});

  auto status = find("v1", "pods/status");
  CHECK(status.namespaced);
  CHECK(status.kind == "Pod");
  CHECK(status.verbs == std::vector<std::string>{"get", "patch", "update"});

  auto eviction = find("v1", "pods/eviction");
  CHECK(eviction.group == "policy");
  CHECK(eviction.kind == "Eviction");
  CHECK(eviction.verbs == std::vector<std::string>{"create"});
  CHECK(schemas::Components("v1")->contains(eviction.schema));

  auto exec = find("v1", "pods/exec");
  CHECK(exec.kind == "PodExecOptions");
  CHECK(exec.schema.empty());
  CHECK(exec.verbs == std::vector<std::string>{"create", "get"});

  auto leases = find("coordination.k8s.io/v1", "leases");
  CHECK(leases.namespaced);
  CHECK(leases.group == "coordination.k8s.io");
  CHECK(leases.kind == "Lease");
  CHECK(leases.verbs == all);

  CHECK_FALSE(find("rbac.authorization.k8s.io/v1", "clusterroles").namespaced);
  CHECK(find("apps/v1", "deployments/scale").kind == "Scale");
  CHECK(schemas::Resources("nope/v1").empty());
}
