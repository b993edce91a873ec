#include "pkg/genericserver/endpoints/openapi/routes.h"

#include <algorithm>
#include <set>
#include <utility>

#include "pkg/genericserver/endpoints/openapi/naming.h"

namespace endpoints::openapi {
namespace {

// The query parameters of the option kinds, as AddObjectParams derives them from the Go
// types of Kubernetes 1.32.
const std::vector<Param> kListOptions = {
    {"allowWatchBookmarks", "query", "boolean"},
    {"continue", "query", "string"},
    {"fieldSelector", "query", "string"},
    {"labelSelector", "query", "string"},
    {"limit", "query", "integer"},
    {"resourceVersion", "query", "string"},
    {"resourceVersionMatch", "query", "string"},
    {"sendInitialEvents", "query", "boolean"},
    {"timeoutSeconds", "query", "integer"},
    {"watch", "query", "boolean"},
};
const std::vector<Param> kDeleteOptions = {
    {"dryRun", "query", "string"},
    {"gracePeriodSeconds", "query", "integer"},
    {"ignoreStoreReadErrorWithClusterBreakingPotential", "query", "boolean"},
    {"orphanDependents", "query", "boolean"},
    {"propagationPolicy", "query", "string"},
};
const std::vector<Param> kCreateOptions = {
    // and UpdateOptions
    {"dryRun", "query", "string"},
    {"fieldManager", "query", "string"},
    {"fieldValidation", "query", "string"},
};
const std::vector<Param> kPatchOptions = {
    {"dryRun", "query", "string"},
    {"fieldManager", "query", "string"},
    {"fieldValidation", "query", "string"},
    {"force", "query", "boolean"},
};
const std::vector<Param> kGetOptions = {{"resourceVersion", "query", "string"}};
const Param kPretty = {"pretty", "query", "string"};
const std::vector<Param> kPodLogOptions = {
    // sinceTime is not documented upstream
    {"container", "query", "string"},
    {"follow", "query", "boolean"},
    {"insecureSkipTLSVerifyBackend", "query", "boolean"},
    {"limitBytes", "query", "integer"},
    {"previous", "query", "boolean"},
    {"sinceSeconds", "query", "integer"},
    {"stream", "query", "string"},
    {"tailLines", "query", "integer"},
    {"timestamps", "query", "boolean"},
};

const std::vector<std::string> kMediaTypes = {"application/json", "application/yaml",
                                              "application/vnd.kubernetes.protobuf"};
const std::vector<std::string> kAllMediaTypes = {
    "application/json", "application/yaml", "application/vnd.kubernetes.protobuf",
    "application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch"};
const std::vector<std::string> kCustomMediaTypes = {"application/json", "application/yaml"};

// The built-in resources whose registry returns the deleted object (ReturnDeletedObject):
// their DELETE documents the kind, not a Status.
bool DeleteReturnsObject(const registry::ResourceSpec& spec) {
  static const std::set<std::pair<std::string_view, std::string_view>> kResources = {
      {"", "persistentvolumeclaims"},
      {"", "persistentvolumes"},
      {"", "pods"},
      {"", "podtemplates"},
      {"", "resourcequotas"},
      {"", "serviceaccounts"},
      {"", "services"},
      {"storage.k8s.io", "csidrivers"},
      {"storage.k8s.io", "csinodes"},
      {"storage.k8s.io", "storageclasses"},
      {"storage.k8s.io", "volumeattachments"},
  };
  return kResources.contains({spec.group, spec.plural});
}

enum class Action {
  kList,
  kPost,
  kDeleteCollection,
  kWatchList,
  kGet,
  kPut,
  kPatch,
  kDelete,
  kWatch
};

struct ActionInfo {
  std::string_view method;
  std::string_view action;
  std::string_view verb;  // the operation name's first word
};

ActionInfo Info(Action a) {
  switch (a) {
    case Action::kList:
      return {"get", "list", "list"};
    case Action::kPost:
      return {"post", "post", "create"};
    case Action::kDeleteCollection:
      return {"delete", "deletecollection", "deletecollection"};
    case Action::kWatchList:
      return {"get", "watchlist", "watch"};
    case Action::kGet:
      return {"get", "get", "read"};
    case Action::kPut:
      return {"put", "put", "replace"};
    case Action::kPatch:
      return {"patch", "patch", "patch"};
    case Action::kDelete:
      return {"delete", "delete", "delete"};
    case Action::kWatch:
      return {"get", "watch", "watch"};
  }
  return {};
}

void Append(std::vector<Param>& to, const std::vector<Param>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

std::vector<Param> Without(std::vector<Param> params,
                           std::initializer_list<std::string_view> names) {
  std::erase_if(params,
                [&](const Param& p) { return std::ranges::find(names, p.name) != names.end(); });
  return params;
}

// Options, body and replies of an action as the generic installer documents them.
void FillBuiltIn(Route& r, Action a, const std::string& object, const std::string& list,
                 bool delete_returns_object) {
  const std::string status(kStatusSchema), delete_options(kDeleteOptionsSchema);
  r.produces = kMediaTypes;
  switch (a) {
    case Action::kList:
      Append(r.params, kListOptions);
      r.produces = kAllMediaTypes;
      r.replies = {{200, list}};
      break;
    case Action::kPost:
      Append(r.params, kCreateOptions);
      r.body = Body{{"*/*"}, object, true};
      r.replies = {{200, object}, {201, object}, {202, object}};
      break;
    case Action::kDeleteCollection:
      Append(r.params, kDeleteOptions);
      Append(r.params, Without(kListOptions, {"watch", "allowWatchBookmarks"}));
      r.body = Body{{"*/*"}, delete_options, false};
      r.replies = {{200, status}};
      break;
    case Action::kWatchList:
    case Action::kWatch:
      Append(r.params, kListOptions);
      r.produces = kAllMediaTypes;
      r.replies = {{200, std::string(kWatchEventSchema)}};
      break;
    case Action::kGet:
      r.replies = {{200, object}};
      break;
    case Action::kPut:
      Append(r.params, kCreateOptions);
      r.body = Body{{"*/*"}, object, true};
      r.replies = {{200, object}, {201, object}};
      break;
    case Action::kPatch: {
      Append(r.params, kPatchOptions);
      std::vector<std::string> types = {
          "application/json-patch+json", "application/merge-patch+json",
          "application/strategic-merge-patch+json", "application/apply-patch+yaml"};
      r.body = Body{std::move(types), std::string(kPatchSchema), true};
      r.replies = {{200, object}, {201, object}};
      break;
    }
    case Action::kDelete:
      Append(r.params, kDeleteOptions);
      r.body = Body{{"*/*"}, delete_options, false};
      if (delete_returns_object) {
        r.replies = {{200, object}, {202, object}};
      } else {
        r.replies = {{200, status}, {202, status}};
      }
      break;
  }
}

// ... and as the apiextensions builder documents them for custom resources.
void FillCustom(Route& r, Action a, const std::string& object, const std::string& list) {
  const std::string status(kStatusSchema);
  r.produces = kCustomMediaTypes;
  switch (a) {
    case Action::kList:
    case Action::kWatchList:
    case Action::kWatch:
      Append(r.params, kListOptions);
      r.replies = {{200, list}};
      break;
    case Action::kPost:
      Append(r.params, kCreateOptions);
      r.body = Body{kCustomMediaTypes, object, true};
      r.replies = {{200, object}, {201, object}, {202, object}};
      break;
    case Action::kDeleteCollection:
      Append(r.params, kListOptions);
      r.replies = {{200, status}};
      break;
    case Action::kGet:
      Append(r.params, kGetOptions);
      r.replies = {{200, object}};
      break;
    case Action::kPut:
      Append(r.params, kCreateOptions);
      r.body = Body{kCustomMediaTypes, object, true};
      r.replies = {{200, object}, {201, object}};
      break;
    case Action::kPatch: {
      Append(r.params, kPatchOptions);
      std::vector<std::string> types = {"application/json-patch+json",
                                        "application/merge-patch+json",
                                        "application/apply-patch+yaml"};
      r.body = Body{std::move(types), std::string(kPatchSchema), true};
      r.replies = {{200, object}};
      break;
    }
    case Action::kDelete:
      Append(r.params, kDeleteOptions);
      r.body = Body{kCustomMediaTypes, std::string(kDeleteOptionsSchema), false};
      r.replies = {{200, status}, {202, status}};
      break;
  }
}

class RouteMaker {
 public:
  RouteMaker(const registry::ResourceSpec& spec, const KindSchemas& schemas)
      : spec_(spec), schemas_(schemas), custom_(IsCustomResource(spec)) {}

  std::vector<Route> Make() {
    const std::string prefix = GroupVersionPrefix(spec_.group, spec_.version);
    const std::string scope = spec_.namespaced ? "/namespaces/{namespace}" : "";
    const std::string collection = prefix + scope + "/" + spec_.plural;
    const std::string item = collection + "/{name}";
    const std::string watch = prefix + "/watch" + scope + "/" + spec_.plural;
    const std::vector<Param> scope_params =
        spec_.namespaced ? std::vector<Param>{{"namespace", "path", "string"}}
                         : std::vector<Param>{};
    std::vector<Param> item_params = scope_params;
    item_params.push_back({"name", "path", "string"});
    const std::string ns = spec_.namespaced ? "Namespaced" : "";
    const std::string& kind = spec_.kind;
    const bool lists = Has(spec_.verbs, "list"), watches = Has(spec_.verbs, "watch");
    const registry::GroupVersionKind gvk = spec_.Kind();
    const std::string& object = schemas_.object;

    if (lists) Add(Action::kList, collection, ns + kind, scope_params, gvk, object);
    if (Has(spec_.verbs, "create"))
      Add(Action::kPost, collection, ns + kind, scope_params, gvk, object);
    if (Has(spec_.verbs, "deletecollection")) {
      Add(Action::kDeleteCollection, collection, ns + kind, scope_params, gvk, object);
    }
    if (Has(spec_.verbs, "get")) Add(Action::kGet, item, ns + kind, item_params, gvk, object);
    if (Has(spec_.verbs, "update")) Add(Action::kPut, item, ns + kind, item_params, gvk, object);
    if (Has(spec_.verbs, "patch")) Add(Action::kPatch, item, ns + kind, item_params, gvk, object);
    if (Has(spec_.verbs, "delete")) Add(Action::kDelete, item, ns + kind, item_params, gvk, object);
    if (spec_.namespaced && lists) {
      Add(Action::kList, prefix + "/" + spec_.plural, kind + "ForAllNamespaces", {}, gvk, object);
    }
    if (!custom_ && watches) {  // deprecated since 1.11, still documented
      if (lists) Add(Action::kWatchList, watch, ns + kind + "List", scope_params, gvk, object);
      Add(Action::kWatch, watch + "/{name}", ns + kind, item_params, gvk, object);
      if (spec_.namespaced && lists) {
        Add(Action::kWatchList, prefix + "/watch/" + spec_.plural, kind + "ListForAllNamespaces",
            {}, gvk, object);
      }
    }
    for (const registry::Subresource& sub : spec_.subresources)
      AddSubresource(sub, item, item_params, ns);
    return std::move(routes_);
  }

 private:
  static bool Has(const std::vector<std::string>& verbs, std::string_view verb) {
    return std::ranges::find(verbs, verb) != verbs.end();
  }

  void AddSubresource(const registry::Subresource& sub, const std::string& item,
                      const std::vector<Param>& params, const std::string& ns) {
    const std::string path = item + "/" + sub.name;
    const std::string name = ns + spec_.kind + Title(sub.name);
    // Built-in subresources carry the kind they return (Scale, Eviction); custom resources'
    // carry the resource's own kind, as the apiextensions builder writes them.
    const registry::GroupVersionKind gvk = custom_ ? spec_.Kind() : sub.kind;
    auto schema = schemas_.subresources.find(sub.name);
    const std::string object = schema == schemas_.subresources.end() ? "" : schema->second;
    if (!custom_ && sub.name == "log" && spec_.group.empty() && spec_.kind == "Pod") {
      AddPodLog(path, name, params, gvk);
      return;
    }
    for (const std::string& verb : sub.verbs) {
      if (verb == "get") Add(Action::kGet, path, name, params, gvk, object);
      if (verb == "update") Add(Action::kPut, path, name, params, gvk, object);
      if (verb == "patch") Add(Action::kPatch, path, name, params, gvk, object);
      if (verb == "create") Add(Action::kPost, path, name, params, gvk, object);
      if (verb == "delete") Add(Action::kDelete, path, name, params, gvk, object);
      if (verb == "list") Add(Action::kList, path, name, params, gvk, object);
    }
  }

  // GET pods/{name}/log: PodLogOptions in, text out (GetterWithOptions).
  void AddPodLog(const std::string& path, const std::string& name,
                 const std::vector<Param>& path_params, const registry::GroupVersionKind& gvk) {
    Route r;
    r.path = path;
    r.method = "get";
    r.operation = "read" + name;
    r.action = "get";
    r.gvk = gvk;
    r.params = path_params;
    r.params.push_back(kPretty);
    Append(r.params, kPodLogOptions);
    r.produces = {"text/plain", "application/json", "application/yaml",
                  "application/vnd.kubernetes.protobuf"};
    r.replies = {{200, "", "string"}};
    routes_.push_back(std::move(r));
  }

  void Add(Action a, const std::string& path, const std::string& rest,
           const std::vector<Param>& path_params, const registry::GroupVersionKind& gvk,
           const std::string& object) {
    ActionInfo info = Info(a);
    Route r;
    r.path = path;
    r.method = std::string(info.method);
    r.operation = std::string(info.verb) + rest;
    r.action = std::string(info.action);
    r.gvk = gvk;
    r.params = path_params;
    r.params.push_back(kPretty);
    if (custom_) {
      FillCustom(r, a, object, schemas_.list);
    } else {
      FillBuiltIn(r, a, object, schemas_.list, DeleteReturnsObject(spec_));
    }
    routes_.push_back(std::move(r));
  }

  const registry::ResourceSpec& spec_;
  const KindSchemas& schemas_;
  const bool custom_;
  std::vector<Route> routes_;
};

}  // namespace

bool IsCustomResource(const registry::ResourceSpec& spec) { return spec.patch_schema == nullptr; }

std::string GroupVersionPrefix(std::string_view group, std::string_view version) {
  if (group.empty()) return "/api/" + std::string(version);
  return "/apis/" + std::string(group) + "/" + std::string(version);
}

std::vector<Route> ResourceRoutes(const registry::ResourceSpec& spec, const KindSchemas& schemas) {
  return RouteMaker(spec, schemas).Make();
}

Route ResourceListRoute(std::string_view group, std::string_view version) {
  Route r;
  r.path = GroupVersionPrefix(group, version) + "/";
  r.method = "get";
  r.operation = "getAPIResources";
  r.produces = kMediaTypes;
  r.replies = {{200, std::string(kAPIResourceListSchema)}};
  return r;
}

}  // namespace endpoints::openapi
