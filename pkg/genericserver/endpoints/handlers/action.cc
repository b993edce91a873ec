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
  registry::Result<WriteRequest> request;
  if (scope.subresource) {
    // The body is another kind than the resource's (a Binding, an Eviction).
    auto options = ParseWriteOptions(ctx);
    auto body = DecodeObject(ctx, &scope.spec);
    if (!options) {
      request = std::unexpected(options.error());
    } else if (!body) {
      request = std::unexpected(body.error());
    } else {
      request = WriteRequest{*options, std::move(*body)};
    }
  } else {
    // The resource's own kind, checked as a create's body is, in the URL's namespace.
    request = ReadWriteRequest(ctx, out, scope.spec);
    if (request) {
      if (auto bad = registry::DecodeBody(scope.spec, request->object))
        request = std::unexpected(*bad);
    }
    if (request && scope.spec.namespaced) {
      nlohmann::json& meta = request->object["metadata"];
      if (!meta.is_object()) meta = nlohmann::json::object();
      const std::string ns = meta.value("namespace", "");
      if (ns.empty()) {
        meta["namespace"] = scope.ns;
      } else if (ns != scope.ns) {
        request = std::unexpected(apimachinery::NewBadRequest(
            "the namespace of the provided object does not match the namespace sent on the "
            "request"));
      }
    }
  }
  if (!request) {
    co_await WriteError(ctx, out, scope, request.error());
    co_return;
  }
  const registry::SubresourceAction& action =
      scope.subresource ? *scope.subresource->action : *scope.spec.create_action;
  auto done = co_await action.Post(scope.store, scope.ns, scope.name, std::move(request->object),
                                   request->options);
  if (!done) {
    co_await WriteError(ctx, out, scope, done.error());
    co_return;
  }
  // A request that answers an object of its kind (the reviews) gives its metadata when that
  // is asked for; a Status answer (evictions, bindings) is passed on as it is, as upstream.
  if (target->kind == Output::kPartialObjectMetadata && done->value("kind", "") != "Status") {
    co_await WriteObjectMetadata(ctx, out, scope, *target, 201, *done);
    co_return;
  }
  co_await WriteDocument(ctx, out, *target, 201, *done);
}

}  // namespace endpoints::handlers
