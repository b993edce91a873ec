#include "pkg/genericserver/endpoints/installer.h"

#include <algorithm>

#include "pkg/genericserver/endpoints/handlers/field_validation.h"
#include "pkg/genericserver/endpoints/handlers/handlers.h"
#include "pkg/genericserver/endpoints/handlers/write_object.h"
#include "pkg/genericserver/server/responses.h"

namespace endpoints {

using handlers::Scope;

namespace {

apimachinery::Status MethodNotAllowed() {
  apimachinery::Status s = apimachinery::NewPathNotFound();
  s.code = 405;
  s.reason = "MethodNotAllowed";
  s.message = "the server does not allow this method on the requested resource";
  return s;
}

bool Allows(const std::vector<std::string>& verbs, std::string_view verb) {
  return std::find(verbs.begin(), verbs.end(), verb) != verbs.end();
}

// Whether the path reads ".../namespaces/{ns}/{resource}...".
bool NamespacePrefixed(const RequestInfo& info) {
  if (info.namespace_.empty()) return false;
  std::string tail = "/namespaces/" + info.namespace_;
  for (const std::string& part : info.parts) tail += "/" + part;
  std::string_view path = info.path;
  if (path.ends_with('/')) path.remove_suffix(1);
  return path.ends_with(tail);
}

}  // namespace

void GroupVersionHandler::Add(std::shared_ptr<registry::Store> store) {
  stores_[store->Spec().plural] = std::move(store);
}

std::vector<registry::ResourceSpecPtr> GroupVersionHandler::Specs() const {
  std::vector<registry::ResourceSpecPtr> out;
  for (const auto& [plural, store] : stores_) {
    out.push_back(store->SpecPtr());
  }
  return out;
}

std::vector<APIResource> DiscoveryResources(const registry::ResourceSpec& spec) {
  std::vector<APIResource> out;
  APIResource main;
  main.name = spec.plural;
  main.singular_name = spec.singular;
  main.namespaced = spec.namespaced;
  main.kind = spec.kind;
  main.verbs = spec.verbs;
  // Built-in kinds list their verbs sorted; custom resources in the order upstream's CRD
  // discovery writes them.
  if (!spec.unstructured) std::sort(main.verbs.begin(), main.verbs.end());
  main.storage_version_hash = spec.storage_version_hash;
  main.short_names = spec.short_names;
  main.categories = spec.categories;
  out.push_back(std::move(main));
  for (const registry::Subresource& sub : spec.subresources) {
    APIResource r;
    r.name = spec.plural + "/" + sub.name;
    r.namespaced = spec.namespaced;
    if (sub.kind.group != spec.group || sub.kind.version != spec.version) {
      r.group = sub.kind.group;
      r.version = sub.kind.version;
    }
    r.kind = sub.kind.kind;
    r.verbs = sub.verbs;
    std::sort(r.verbs.begin(), r.verbs.end());
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<APIResource> GroupVersionHandler::Resources() const {
  std::vector<APIResource> out;
  for (const auto& [plural, store] : stores_) {
    for (auto& r : DiscoveryResources(store->Spec())) out.push_back(std::move(r));
  }
  return out;
}

Awaitable<void> GroupVersionHandler::Serve(genericserver::RequestContext& ctx,
                                           genericserver::ResponseWriter& out) {
  const RequestInfo& info = ctx.info;
  auto it = info.is_resource_request ? stores_.find(info.resource) : stores_.end();
  if (it == stores_.end()) {
    co_await genericserver::WriteStatus(out, apimachinery::NewPathNotFound());
    co_return;
  }
  registry::Store& store = *it->second;
  const registry::ResourceSpec& spec = store.Spec();
  const registry::Subresource* sub = nullptr;
  if (!info.subresource.empty()) {
    sub = spec.FindSubresource(info.subresource);
    if (!sub || info.name.empty()) {
      co_await genericserver::WriteStatus(out, apimachinery::NewPathNotFound());
      co_return;
    }
  }
  // A cluster-scoped resource has no namespaced path: ".../namespaces/{ns}/" before the
  // resource (for /api/v1/namespaces/{name} the namespace is the name, not a prefix).
  if (!spec.namespaced && NamespacePrefixed(info)) {
    co_await genericserver::WriteStatus(out, apimachinery::NewPathNotFound());
    co_return;
  }
  // Writes and single objects of a namespaced resource need the namespace in the path.
  if (spec.namespaced && info.namespace_.empty() && info.verb != "list" && info.verb != "watch") {
    co_await genericserver::WriteStatus(out, apimachinery::NewPathNotFound());
    co_return;
  }
  Scope scope{spec,
              store,
              sub,
              spec.namespaced ? info.namespace_ : std::string(),
              info.verb == "list" || info.verb == "watch" ? std::string() : info.name,
              lifecycle_};
  if (info.verb == "watch" && !info.name.empty() && info.parts.size() > 1) scope.name = info.name;
  if (!spec.deprecation_warning.empty()) handlers::AddWarnings(out, {spec.deprecation_warning});
  const auto& verbs = sub ? sub->verbs : spec.verbs;
  const std::string& verb = info.verb;
  if (!Allows(verbs, verb)) {
    co_await genericserver::WriteStatus(out, MethodNotAllowed());
    co_return;
  }
  if ((sub && sub->action) || (!sub && verb == "create" && spec.create_action)) {
    co_await handlers::ServeAction(ctx, out, scope);
  } else if (sub && sub->view) {
    co_await handlers::ServeView(ctx, out, scope);
  } else if (verb == "get") {
    co_await handlers::ServeGet(ctx, out, scope);
  } else if (verb == "list") {
    co_await handlers::ServeList(ctx, out, scope);
  } else if (verb == "watch") {
    co_await handlers::ServeWatch(ctx, out, scope);
  } else if (verb == "create") {
    co_await handlers::ServeCreate(ctx, out, scope);
  } else if (verb == "update") {
    co_await handlers::ServeUpdate(ctx, out, scope);
  } else if (verb == "patch") {
    co_await handlers::ServePatch(ctx, out, scope);
  } else if (verb == "delete") {
    co_await handlers::ServeDelete(ctx, out, scope);
  } else if (verb == "deletecollection") {
    co_await handlers::ServeDeleteCollection(ctx, out, scope);
  } else {
    co_await genericserver::WriteStatus(out, MethodNotAllowed());
  }
}

}  // namespace endpoints
