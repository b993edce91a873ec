// PUT: replace an object (or its status), with optimistic concurrency on
// metadata.resourceVersion.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/handlers/decode.h"
#include "pkg/genericserver/endpoints/handlers/handlers.h"
#include "pkg/genericserver/endpoints/handlers/write_object.h"

namespace endpoints::handlers {

Awaitable<void> ServeUpdate(RequestContext& ctx, ResponseWriter& out, const Scope& scope) {
  auto target = co_await Negotiate(ctx, out, scope, false);
  if (!target) co_return;
  auto request = ReadWriteRequest(ctx, out, scope.spec);
  if (!request) {
    co_await WriteError(ctx, out, scope, request.error());
    co_return;
  }
  auto object = std::make_shared<nlohmann::json>(std::move(request->object));
  registry::UpdateFunc replace =
      [object](const nlohmann::json*) -> Awaitable<registry::Result<nlohmann::json>> {
    co_return *object;
  };
  const registry::Strategy* strategy =
      scope.subresource ? scope.subresource->strategy.get() : nullptr;
  auto updated =
      co_await scope.store.Update(scope.ns, scope.name, replace, request->options, strategy);
  if (!updated) {
    co_await WriteError(ctx, out, scope, updated.error());
    co_return;
  }
  const int code = updated->created ? 201 : 200;
  co_await WriteObject(ctx, out, scope, *target, code, *updated->object);
}

}  // namespace endpoints::handlers
