// POST to an action subresource (pods/binding, pods/eviction) or to a resource that is
// only a request (the legacy core bindings): the body is the request, the answer a Status.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/handlers/decode.h"
#include "pkg/genericserver/endpoints/handlers/handlers.h"
#include "pkg/genericserver/endpoints/handlers/options.h"
#include "pkg/genericserver/endpoints/handlers/write_object.h"
#include "pkg/genericserver/registry/subresource_action.h"

namespace endpoints::handlers {

Awaitable<void> ServeAction(RequestContext& ctx, ResponseWriter& out, const Scope& scope) {
  auto target = co_await Negotiate(ctx, out, scope, false);
  if (!target) co_return;
  auto options = ParseWriteOptions(ctx);
  if (!options) {
    co_await WriteError(ctx, out, options.error());
    co_return;
  }
  auto body = DecodeObject(ctx, &scope.spec);
  if (!body) {
    co_await WriteError(ctx, out, body.error());
    co_return;
  }
  const registry::SubresourceAction& action =
      scope.subresource ? *scope.subresource->action : *scope.spec.create_action;
  auto done = co_await action.Post(scope.store, scope.ns, scope.name, std::move(*body), *options);
  if (!done) {
    co_await WriteError(ctx, out, done.error());
    co_return;
  }
  co_await WriteDocument(ctx, out, *target, done->code,
                         nlohmann::json::parse(apimachinery::EncodeStatus(*done)));
}

}  // namespace endpoints::handlers
