// POST: create an object in a collection.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/handlers/decode.h"
#include "pkg/genericserver/endpoints/handlers/handlers.h"
#include "pkg/genericserver/endpoints/handlers/write_object.h"

namespace endpoints::handlers {

Awaitable<void> ServeCreate(RequestContext& ctx, ResponseWriter& out, const Scope& scope) {
  auto target = co_await Negotiate(ctx, out, scope, false);
  if (!target) co_return;
  auto request = ReadWriteRequest(ctx, out, scope.spec);
  if (!request) {
    co_await WriteError(ctx, out, scope, request.error());
    co_return;
  }
  auto created =
      co_await scope.store.Create(scope.ns, std::move(request->object), request->options);
  if (!created) {
    co_await WriteError(ctx, out, scope, created.error());
    co_return;
  }
  co_await WriteObject(ctx, out, scope, *target, 201, **created);
}

}  // namespace endpoints::handlers
