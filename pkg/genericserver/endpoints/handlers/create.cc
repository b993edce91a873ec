// POST: create an object in a collection.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/handlers/decode.h"
#include "pkg/genericserver/endpoints/handlers/field_validation.h"
#include "pkg/genericserver/endpoints/handlers/handlers.h"
#include "pkg/genericserver/endpoints/handlers/options.h"
#include "pkg/genericserver/endpoints/handlers/write_object.h"

namespace endpoints::handlers {

Awaitable<void> ServeCreate(RequestContext& ctx, ResponseWriter& out, const Scope& scope) {
  auto target = co_await Negotiate(ctx, out, false);
  if (!target) co_return;
  auto options = ParseWriteOptions(ctx);
  if (!options) {
    co_await WriteError(ctx, out, options.error());
    co_return;
  }
  auto body = DecodeObject(ctx);
  if (body) body = CheckFields(ctx, out, scope.spec, std::move(*body));
  if (!body) {
    co_await WriteError(ctx, out, body.error());
    co_return;
  }
  auto created = co_await scope.store.Create(scope.ns, std::move(*body), *options);
  if (!created) {
    co_await WriteError(ctx, out, created.error());
    co_return;
  }
  co_await WriteObject(ctx, out, scope, *target, 201, **created);
}

}  // namespace endpoints::handlers
