// LIST: selectors, pagination and resourceVersion semantics are the Store's.
#include "pkg/genericserver/endpoints/handlers/handlers.h"
#include "pkg/genericserver/endpoints/handlers/options.h"
#include "pkg/genericserver/endpoints/handlers/write_object.h"

namespace endpoints::handlers {

Awaitable<void> ServeList(RequestContext& ctx, ResponseWriter& out, const Scope& scope) {
  auto target = co_await Negotiate(ctx, out, scope, false);
  if (!target) co_return;
  auto options = ParseListOptions(ctx, false);
  if (!options) {
    co_await WriteError(ctx, out, scope, options.error());
    co_return;
  }
  auto list = co_await scope.store.List(scope.ns, std::move(*options));
  if (!list) {
    co_await WriteError(ctx, out, scope, list.error());
    co_return;
  }
  co_await WriteList(ctx, out, scope, *target, *list);
}

}  // namespace endpoints::handlers
