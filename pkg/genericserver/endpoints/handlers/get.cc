// GET of one object (or of a subresource that returns the object, such as status).
#include "pkg/genericserver/endpoints/handlers/handlers.h"
#include "pkg/genericserver/endpoints/handlers/write_object.h"

namespace endpoints::handlers {

Awaitable<void> ServeGet(RequestContext& ctx, ResponseWriter& out, const Scope& scope) {
  auto target = co_await Negotiate(ctx, out, scope, false);
  if (!target) co_return;
  auto got = co_await scope.store.Get(scope.ns, scope.name,
                                      ctx.request.query.Get("resourceVersion").value_or(""));
  if (!got) {
    co_await WriteError(ctx, out, scope, got.error());
    co_return;
  }
  co_await WriteObject(ctx, out, scope, *target, 200, **got);
}

}  // namespace endpoints::handlers
