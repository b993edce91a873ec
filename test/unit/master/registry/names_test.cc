// Object names per kind, as upstream validates them: one row per creatable resource of the
// whole chain, with a name upstream accepts and one it refuses. The test walks discovery, so a
// resource served without a row here fails it.
#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "test/unit/master/registry/chain_fixture.h"
#include "test/unit/master/registry/objects.h"

using nlohmann::json;

namespace {

constexpr char kSubdomainMsg[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
constexpr char kDNS1035Msg[] =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

struct Row {
  std::string group_version;  // "v1", "apps/v1"
  std::string resource;
  std::string valid;    // a name upstream accepts (one a plain DNS subdomain check would not,
                        // where the kind's rule allows it); empty: not tried
  std::string invalid;  // a name upstream refuses; empty: none is
  std::string message;  // the refusal's cause at `field`
  std::string field = "metadata.name";
};

std::vector<Row> Rows() {
  const std::string subdomain = kSubdomainMsg;
  // Most kinds: a DNS-1123 subdomain.
  auto sub = [&](std::string gv, std::string resource) {
    return Row{std::move(gv), std::move(resource), "a.b-c", "a_b", subdomain};
  };
  return {
      // core
      sub("v1", "configmaps"),
      sub("v1", "endpoints"),
      sub("v1", "limitranges"),
      sub("v1", "nodes"),
      sub("v1", "persistentvolumeclaims"),
      sub("v1", "persistentvolumes"),
      sub("v1", "pods"),
      sub("v1", "podtemplates"),
      sub("v1", "replicationcontrollers"),
      sub("v1", "resourcequotas"),
      sub("v1", "secrets"),
      sub("v1", "serviceaccounts"),
      {"v1", "namespaces", "team-a", "team.a", "must not contain dots"},
      {"v1", "services", "web", "1web", kDNS1035Msg},
      // core events have no rule of their own: only the path segment rules
      {"v1", "events", "Foo_Bar:x.17a", "a/b", "may not contain '/'"},
      // the legacy bindings name the pod they bind: no name rule (the pod must exist)
      {"v1", "bindings", "", "", ""},
      // apps, batch, autoscaling
      sub("apps/v1", "controllerrevisions"),
      sub("apps/v1", "daemonsets"),
      sub("apps/v1", "deployments"),
      sub("apps/v1", "replicasets"),
      {"apps/v1", "statefulsets", "web-0", "web.v1", "must not contain dots"},
      sub("autoscaling/v1", "horizontalpodautoscalers"),
      sub("autoscaling/v2", "horizontalpodautoscalers"),
      sub("batch/v1", "jobs"),
      {"batch/v1", "cronjobs", std::string(52, 'c'), std::string(53, 'c'),
       "must be no more than 52 characters"},
      // policy, certificates: no rule of their own
      {"policy/v1", "poddisruptionbudgets", "My_PDB:1", "50%", "may not contain '%'"},
      {"certificates.k8s.io/v1", "certificatesigningrequests", "csr-Foo_1:x", "..",
       "may not be '..'"},
      // RBAC names are path segments
      {"rbac.authorization.k8s.io/v1", "roles", "system:aggregated-metrics-reader", "a/b",
       "may not contain '/'"},
      {"rbac.authorization.k8s.io/v1", "clusterroles",
       "cert-manager-controller-approve:cert-manager-io", "..", "may not be '..'"},
      {"rbac.authorization.k8s.io/v1", "rolebindings", "system:controller:bootstrap-signer", "a%b",
       "may not contain '%'"},
      {"rbac.authorization.k8s.io/v1", "clusterrolebindings", "Admin Binding", ".",
       "may not be '.'"},
      // scheduling: "system-" is reserved
      {"scheduling.k8s.io/v1", "priorityclasses", "high", "system-high",
       "priority class names with 'system-' prefix are reserved for system use only. error: "
       "system-high is not a known system priority class"},
      // the rest: subdomains
      sub("coordination.k8s.io/v1", "leases"),
      sub("discovery.k8s.io/v1", "endpointslices"),
      sub("events.k8s.io/v1", "events"),
      sub("flowcontrol.apiserver.k8s.io/v1", "flowschemas"),
      sub("flowcontrol.apiserver.k8s.io/v1", "prioritylevelconfigurations"),
      sub("networking.k8s.io/v1", "ingressclasses"),
      sub("networking.k8s.io/v1", "ingresses"),
      sub("networking.k8s.io/v1", "networkpolicies"),
      sub("node.k8s.io/v1", "runtimeclasses"),
      sub("storage.k8s.io/v1", "csidrivers"),
      sub("storage.k8s.io/v1", "csinodes"),
      sub("storage.k8s.io/v1", "csistoragecapacities"),
      sub("storage.k8s.io/v1", "storageclasses"),
      sub("storage.k8s.io/v1", "volumeattachments"),
      sub("admissionregistration.k8s.io/v1", "mutatingwebhookconfigurations"),
      sub("admissionregistration.k8s.io/v1", "validatingwebhookconfigurations"),
      sub("admissionregistration.k8s.io/v1", "validatingadmissionpolicies"),
      sub("admissionregistration.k8s.io/v1", "validatingadmissionpolicybindings"),
      // CRDs and APIServices are named after what they serve
      {"apiextensions.k8s.io/v1", "customresourcedefinitions", "widgets.example.com",
       "gadgets.example.com", R"(must be spec.names.plural+"."+spec.group)"},
      {"apiregistration.k8s.io/v1", "apiservices", "v1alpha1.example.com", "v1.example.com",
       "must be `spec.version+\".\"+spec.group`: \"v1alpha1.example.com\""},
      // the reviews are not stored: their names are not checked
      {"authentication.k8s.io/v1", "tokenreviews", "A/b", "", ""},
      {"authentication.k8s.io/v1", "selfsubjectreviews", "A/b", "", ""},
      {"authorization.k8s.io/v1", "selfsubjectrulesreviews", "A/b", "", ""},
      // access reviews may carry no metadata at all (a local one its namespace)
      {"authorization.k8s.io/v1", "subjectaccessreviews", "", "a", "must be empty", "metadata"},
      {"authorization.k8s.io/v1", "selfsubjectaccessreviews", "", "a", "must be empty", "metadata"},
      {"authorization.k8s.io/v1", "localsubjectaccessreviews", "", "a",
       "must be empty except for namespace", "metadata"},
  };
}

// Every resource of the chain that can be created, as "<group/version>/<resource>", with its
// kind and whether it is namespaced.
struct Served {
  std::string kind;
  bool namespaced = false;
};
std::map<std::string, Served> CreatableResources(testing::Chain& api) {
  std::vector<std::string> versions = {"v1"};
  json groups = api.Do("GET", "/apis").Json();
  for (const json& g : groups["groups"]) {
    for (const json& v : g["versions"]) versions.push_back(v["groupVersion"]);
  }
  std::map<std::string, Served> out;
  for (const std::string& gv : versions) {
    json list = api.Do("GET", testing::GroupVersionPrefix(gv)).Json();
    for (const json& r : list["resources"]) {
      const std::string name = r["name"];
      if (name.find('/') != std::string::npos) continue;
      const json& verbs = r["verbs"];
      if (std::find(verbs.begin(), verbs.end(), "create") == verbs.end()) continue;
      out[gv + "/" + name] = {r["kind"], r["namespaced"]};
    }
  }
  return out;
}

bool HasCause(const json& status, const std::string& field, const std::string& message) {
  for (const json& c : status.value("details", json::object()).value("causes", json::array())) {
    if (c.value("field", "") == field &&
        (message.empty() || c.value("message", "").find(message) != std::string::npos)) {
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("names: every creatable kind validates names as upstream does", "[builtin][names]") {
  testing::Chain api;
  const std::map<std::string, Served> served = CreatableResources(api);
  std::set<std::string> listed;
  for (const Row& row : Rows()) {
    const std::string key = row.group_version + "/" + row.resource;
    listed.insert(key);
    INFO(key);
    auto it = served.find(key);
    REQUIRE(it != served.end());
    const std::string collection = testing::GroupVersionPrefix(row.group_version) +
                                   (it->second.namespaced ? "/namespaces/default/" : "/") +
                                   row.resource + "?dryRun=All";
    auto object = [&](const std::string& name) {
      json o = testing::ValidBody(key);
      o["apiVersion"] = row.group_version;
      o["kind"] = it->second.kind;
      o["metadata"] = {{"name", name}};
      if (it->second.namespaced) o["metadata"]["namespace"] = "default";
      return o.dump();
    };
    if (!row.valid.empty()) {
      INFO("accepted: " << row.valid);
      auto r = api.Do("POST", collection, object(row.valid));
      INFO(r.body);
      CHECK(r.status == 201);
      CHECK_FALSE(HasCause(r.Json(), row.field, ""));
    }
    if (!row.invalid.empty()) {
      INFO("refused: " << row.invalid);
      auto r = api.Do("POST", collection, object(row.invalid));
      INFO(r.body);
      CHECK(r.status == 422);
      CHECK(HasCause(r.Json(), row.field, row.message));
    }
  }
  for (const auto& [key, s] : served) {
    INFO("served without a row: " << key);
    CHECK(listed.count(key) == 1);
  }
}

TEST_CASE("names: generateName is checked as a prefix, RBAC names not relaxed",
          "[builtin][names]") {
  testing::Chain api;
  auto create = [&](const std::string& collection, const json& object) {
    return api.Do("POST", collection + "?dryRun=All", object.dump());
  };
  // A DNS prefix may end in '-' (the random suffix follows); a path-segment prefix may be ".".
  auto cm =
      create("/api/v1/namespaces/default/configmaps", {{"metadata", {{"generateName", "web-"}}}});
  REQUIRE(cm.status == 201);
  CHECK(cm.Json()["metadata"]["name"].get<std::string>().starts_with("web-"));
  auto pdb = create("/apis/policy/v1/namespaces/default/poddisruptionbudgets",
                    {{"metadata", {{"generateName", "."}}}});
  CHECK(pdb.status == 201);
  // RBAC kinds check a generateName as a whole name.
  auto role = create("/apis/rbac.authorization.k8s.io/v1/clusterroles",
                     {{"metadata", {{"generateName", "."}}}});
  REQUIRE(role.status == 422);
  CHECK(HasCause(role.Json(), "metadata.generateName", "may not be '.'"));
  // A long prefix is cut to 58 characters, so that the name stays within 63.
  auto long_prefix = create("/api/v1/namespaces/default/configmaps",
                            {{"metadata", {{"generateName", std::string(70, 'c')}}}});
  REQUIRE(long_prefix.status == 201);
  CHECK(long_prefix.Json()["metadata"]["name"].get<std::string>().size() == 63);
  // A roleRef names a role with the same rules.
  auto binding = create(
      "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      {{"metadata", {{"name", "b"}}},
       {"roleRef",
        {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "a/b"}}}});
  REQUIRE(binding.status == 422);
  CHECK(HasCause(binding.Json(), "roleRef.name", "may not contain '/'"));
  // An indexed job's last pod name must be a DNS label.
  // The metadata an access review refuses is printed as Go prints an ObjectMeta.
  auto review = create("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                       {{"metadata", {{"name", "x"}, {"labels", {{"a", "b"}}}}},
                        {"spec", {{"resourceAttributes", {{"verb", "get"}}}}}});
  REQUIRE(review.status == 422);
  CHECK(review.Json()["message"] ==
        "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: metadata: Invalid value: "
        "v1.ObjectMeta{Name:\"x\", GenerateName:\"\", Namespace:\"\", SelfLink:\"\", UID:\"\", "
        "ResourceVersion:\"\", Generation:0, CreationTimestamp:time.Date(1, time.January, 1, 0, 0, "
        "0, "
        "0, time.UTC), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), "
        "Labels:map[string]string{\"a\":\"b\"}, Annotations:map[string]string(nil), "
        "OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), "
        "ManagedFields:[]v1.ManagedFieldsEntry(nil)}: must be empty");
  auto job = create(
      "/apis/batch/v1/namespaces/default/jobs",
      {{"metadata", {{"name", std::string(62, 'j')}}},
       {"spec",
        {{"completionMode", "Indexed"},
         {"completions", 10},
         {"template",
          {{"spec",
            {{"restartPolicy", "Never"}, {"containers", {{{"name", "c"}, {"image", "i"}}}}}}}}}}});
  REQUIRE(job.status == 422);
  CHECK(HasCause(
      job.Json(), "metadata.name",
      "will not able to create pod with invalid DNS label: " + std::string(62, 'j') + "-9"));
}
