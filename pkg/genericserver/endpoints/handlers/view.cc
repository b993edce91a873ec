// Subresources that are views of their object (/scale): GET, PUT and PATCH act on the
// view; the object behind it is updated through the Store as any update is.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/managedfields/field_manager.h"
#include "pkg/genericserver/apimachinery/patch/json_patch.h"
#include "pkg/genericserver/apimachinery/patch/merge_patch.h"
#include "pkg/genericserver/endpoints/handlers/decode.h"
#include "pkg/genericserver/endpoints/handlers/handlers.h"
#include "pkg/genericserver/endpoints/handlers/options.h"
#include "pkg/genericserver/endpoints/handlers/write_object.h"
#include "pkg/genericserver/registry/object_meta.h"

namespace endpoints::handlers {

using nlohmann::json;
namespace patch = apimachinery::patch;

namespace {

// The new view from the old one: the body of a PUT, or the old view patched.
using ViewUpdate = std::function<registry::Result<json>(const json& current_view)>;

Awaitable<void> UpdateView(RequestContext& ctx, ResponseWriter& out, const Scope& scope,
                           const OutputTarget& target, ViewUpdate next) {
  auto options = ParseWriteOptions(ctx);
  if (!options) {
    co_await WriteError(ctx, out, scope, options.error());
    co_return;
  }
  const registry::SubresourceView& view = *scope.subresource->view;
  const registry::ResourceSpec& spec = scope.spec;
  const std::string name = scope.name;
  registry::UpdateFunc fold = [&view, &spec, name,
                               next](const json* old) -> Awaitable<registry::Result<json>> {
    if (!old) co_return std::unexpected(apimachinery::NewNotFound(spec.Resource(), name));
    auto updated_view = next(view.ToView(*old));
    if (!updated_view) co_return std::unexpected(updated_view.error());
    auto object = view.FromView(*updated_view, *old);
    if (!object) co_return std::unexpected(object.error());
    co_return *object;
  };
  auto updated = co_await scope.store.Update(scope.ns, scope.name, fold, *options, nullptr);
  if (!updated) {
    co_await WriteError(ctx, out, scope, updated.error());
    co_return;
  }
  co_await WriteDocument(ctx, out, target, 200, view.ToView(registry::Parse(*updated->object)));
}

// Server-side apply of a view: the fields it sets (a Scale's spec.replicas) are applied to
// the object behind it, owned by the manager with the subresource's name.
Awaitable<void> ApplyView(RequestContext& ctx, ResponseWriter& out, const Scope& scope,
                          const OutputTarget& target) {
  auto options = ParseWriteOptions(ctx);
  auto force = ParseForce(ctx, true);
  auto named = RequireApplyFieldManager(ctx);
  registry::Result<json> body = !options ? std::unexpected(options.error())
                                : !force ? std::unexpected(force.error())
                                : !named ? std::unexpected(named.error())
                                         : ParseApplyBody(ctx.request.body);
  if (body) {
    auto wrong = apimachinery::managedfields::CheckApplyVersion(
        *body, scope.subresource->kind.GroupVersion());
    if (wrong) body = std::unexpected(*wrong);
  }
  if (!body) {
    co_await WriteError(ctx, out, scope, body.error());
    co_return;
  }
  options->apply = true;
  const registry::SubresourceView& view = *scope.subresource->view;
  const registry::ResourceSpec& spec = scope.spec;
  const std::string name = scope.name;
  auto config = std::make_shared<json>(std::move(*body));
  apimachinery::managedfields::WriteContext write{options->field_manager, options->subresource, {}};
  const bool forced = *force;
  registry::UpdateFunc fold = [&view, &spec, name, config, write, forced](
                                  const json* old) mutable -> Awaitable<registry::Result<json>> {
    if (!old) co_return std::unexpected(apimachinery::NewNotFound(spec.Resource(), name));
    // The object's part of the applied view, and nothing else.
    json applied = {
        {"apiVersion", spec.GroupVersion()}, {"kind", spec.kind}, {"metadata", {{"name", name}}}};
    const json& spec_part = config->value("spec", json::object());
    if (spec_part.is_object() && spec_part.contains("replicas")) {
      auto folded = view.FromView(*config, applied);
      if (!folded) co_return std::unexpected(folded.error());
      applied = std::move(*folded);
    }
    write.reset = spec.strategy->ResetFields(applied, old);
    co_return spec.field_manager->Apply(old, applied, write, forced);
  };
  auto updated = co_await scope.store.Update(scope.ns, scope.name, fold, *options, nullptr);
  if (!updated) {
    co_await WriteError(ctx, out, scope, updated.error());
    co_return;
  }
  co_await WriteDocument(ctx, out, target, 200, view.ToView(registry::Parse(*updated->object)));
}

}  // namespace

Awaitable<void> ServeView(RequestContext& ctx, ResponseWriter& out, const Scope& scope) {
  auto target = co_await Negotiate(ctx, out, scope, false);
  if (!target) co_return;
  const registry::SubresourceView& view = *scope.subresource->view;
  const std::string& method = ctx.request.method;
  if (method == "GET") {
    auto got = co_await scope.store.Get(scope.ns, scope.name,
                                        ctx.request.query.Get("resourceVersion").value_or(""));
    if (!got) {
      co_await WriteError(ctx, out, scope, got.error());
      co_return;
    }
    co_await WriteDocument(ctx, out, *target, 200, view.ToView(registry::Parse(**got)));
    co_return;
  }
  if (method == "PUT") {
    auto body = DecodeObject(ctx, &scope.spec);
    if (!body) {
      co_await WriteError(ctx, out, scope, body.error());
      co_return;
    }
    auto replacement = std::make_shared<json>(std::move(*body));
    const ViewUpdate replace = [replacement](const json&) -> registry::Result<json> {
      return *replacement;
    };
    co_await UpdateView(ctx, out, scope, *target, replace);
    co_return;
  }
  // PATCH; a view has no lists to merge by key, so a strategic merge patch merges.
  const std::string type = BodyMediaType(ctx);
  if (type == kApplyPatch) {
    co_await ApplyView(ctx, out, scope, *target);
    co_return;
  }
  if (type != kJSONPatch && type != kMergePatch && type != kStrategicPatch) {
    const apimachinery::Status unsupported =
        apimachinery::NewUnsupportedMediaType(type, AcceptedPatchTypes(true));
    co_await WriteError(ctx, out, scope, unsupported);
    co_return;
  }
  auto parsed = ParseJSON(ctx.request.body);
  if (!parsed) {
    co_await WriteError(ctx, out, scope, parsed.error());
    co_return;
  }
  auto document = std::make_shared<json>(std::move(*parsed));
  const bool json_patch = type == kJSONPatch;
  const ViewUpdate apply = [document, json_patch](const json& current) -> registry::Result<json> {
    auto patched = json_patch ? patch::ApplyJsonPatch(current, *document)
                              : patch::ApplyMergePatch(current, *document);
    if (!patched) return std::unexpected(patch::PatchErrorToStatus(patched.error()));
    return *patched;
  };
  co_await UpdateView(ctx, out, scope, *target, apply);
}

}  // namespace endpoints::handlers
