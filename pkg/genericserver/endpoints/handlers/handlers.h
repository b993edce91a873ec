#pragma once
// The REST verbs, one file each, shared by every resource: what the request is about is
// in the Scope; what differs between resources is in its ResourceSpec and Store.

#include <memory>
#include <string>

#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/server/handler.h"
#include "pkg/genericserver/server/lifecycle.h"

namespace endpoints::handlers {

struct Scope {
  const registry::ResourceSpec& spec;
  registry::Store& store;
  const registry::Subresource* subresource = nullptr;  // null: the resource itself
  std::string ns;    // empty for cluster-scoped resources and all-namespace lists
  std::string name;  // empty for collections
  genericserver::Lifecycle* lifecycle = nullptr;  // ends watches at shutdown
};

using genericserver::RequestContext;
using genericserver::ResponseWriter;

Awaitable<void> ServeGet(RequestContext& ctx, ResponseWriter& out, const Scope& scope);
Awaitable<void> ServeList(RequestContext& ctx, ResponseWriter& out, const Scope& scope);
Awaitable<void> ServeWatch(RequestContext& ctx, ResponseWriter& out, const Scope& scope);
Awaitable<void> ServeCreate(RequestContext& ctx, ResponseWriter& out, const Scope& scope);
Awaitable<void> ServeUpdate(RequestContext& ctx, ResponseWriter& out, const Scope& scope);
Awaitable<void> ServePatch(RequestContext& ctx, ResponseWriter& out, const Scope& scope);
// GET, PUT and PATCH of a subresource with a view (scope.subresource->view): the view of
// the stored object is read, replaced or patched, then folded back into the object.
Awaitable<void> ServeView(RequestContext& ctx, ResponseWriter& out, const Scope& scope);
// POST to a subresource with an action (scope.subresource->action), or to a resource with
// one (scope.spec.create_action): the Status it answers.
Awaitable<void> ServeAction(RequestContext& ctx, ResponseWriter& out, const Scope& scope);
Awaitable<void> ServeDelete(RequestContext& ctx, ResponseWriter& out, const Scope& scope);
Awaitable<void> ServeDeleteCollection(RequestContext& ctx, ResponseWriter& out, const Scope& scope);

}  // namespace endpoints::handlers
