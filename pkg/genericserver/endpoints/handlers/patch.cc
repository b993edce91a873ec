// PATCH: JSON patch, merge patch and strategic merge patch, applied to the stored object
// (again, if it changed meanwhile), and server-side apply (application/apply-patch+yaml),
// which merges an applied configuration by the field manager's rules and creates the
// object when it is missing.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/managedfields/field_manager.h"
#include "pkg/genericserver/apimachinery/patch/json_patch.h"
#include "pkg/genericserver/apimachinery/patch/merge_patch.h"
#include "pkg/genericserver/apimachinery/patch/strategic_merge_patch.h"
#include "pkg/genericserver/audit/context.h"
#include "pkg/genericserver/endpoints/handlers/decode.h"
#include "pkg/genericserver/endpoints/handlers/field_validation.h"
#include "pkg/genericserver/endpoints/handlers/handlers.h"
#include "pkg/genericserver/endpoints/handlers/options.h"
#include "pkg/genericserver/endpoints/handlers/write_object.h"

namespace endpoints::handlers {

using nlohmann::json;
namespace patch = apimachinery::patch;

Awaitable<void> ServePatch(RequestContext& ctx, ResponseWriter& out, const Scope& scope) {
  auto target = co_await Negotiate(ctx, out, scope, false);
  if (!target) co_return;
  const std::string type = BodyMediaType(ctx);
  const bool strategic_ok = scope.spec.patch_schema != nullptr;
  const bool apply = type == kApplyPatch;
  if (!apply && type != kJSONPatch && type != kMergePatch &&
      (type != kStrategicPatch || !strategic_ok)) {
    co_await WriteError(
        ctx, out, scope,
        apimachinery::NewUnsupportedMediaType(type, AcceptedPatchTypes(strategic_ok)));
    co_return;
  }
  auto options = ParseWriteOptions(ctx);
  auto validation = ParseFieldValidation(ctx);
  auto force = ParseForce(ctx, apply);
  registry::Result<void> manager_named =
      apply ? RequireApplyFieldManager(ctx) : registry::Result<void>();
  registry::Result<json> body = !options         ? std::unexpected(options.error())
                                : !validation    ? std::unexpected(validation.error())
                                : !force         ? std::unexpected(force.error())
                                : !manager_named ? std::unexpected(manager_named.error())
                                : apply          ? ParseApplyBody(ctx.request.body)
                                                 : ParseJSON(ctx.request.body);
  if (!body) {
    co_await WriteError(ctx, out, scope, body.error());
    co_return;
  }
  if (ctx.audit) ctx.audit->LogRequestPatch(*body);
  const registry::ResourceSpec& spec = scope.spec;
  const std::string name = scope.name;
  // The warnings of the last attempt win: each attempt starts from the stored object.
  auto warnings = std::make_shared<std::vector<std::string>>();
  registry::UpdateFunc update;
  if (apply) {
    // Unknown fields are dropped (or refused) once, as a body is decoded once upstream.
    auto config = CheckFieldsCollecting(*validation, spec, std::move(*body), *warnings);
    if (!config) {
      co_await WriteError(ctx, out, scope, config.error());
      co_return;
    }
    options->apply = true;
    auto applied = std::make_shared<json>(std::move(*config));
    const registry::Strategy* writes_through = scope.subresource && scope.subresource->strategy
                                                   ? scope.subresource->strategy.get()
                                                   : spec.strategy.get();
    apimachinery::managedfields::WriteContext write{
        options->field_manager, options->subresource, {}};
    const bool forced = *force;
    update = [&spec, applied, write, writes_through,
              forced](const json* old) mutable -> Awaitable<registry::Result<json>> {
      write.reset = writes_through->ResetFields(*applied, old);
      co_return spec.field_manager->Apply(old, *applied, write, forced);
    };
  } else {
    auto patch_doc = std::make_shared<json>(std::move(*body));
    std::shared_ptr<const patch::PatchSchema> patch_schema = spec.patch_schema;
    update = [&, patch_doc, patch_schema, type, name,
              warnings](const json* old) -> Awaitable<registry::Result<json>> {
      if (!old) co_return std::unexpected(apimachinery::NewNotFound(spec.Resource(), name));
      std::expected<json, patch::PatchError> patched;
      if (type == kJSONPatch) {
        patched = patch::ApplyJsonPatch(*old, *patch_doc);
      } else if (type == kMergePatch) {
        patched = patch::ApplyMergePatch(*old, *patch_doc);
      } else {
        patched = patch::ApplyStrategicMergePatch(*old, *patch_doc, *patch_schema);
      }
      if (!patched) co_return std::unexpected(patch::PatchErrorToStatus(patched.error()));
      warnings->clear();
      co_return CheckFieldsCollecting(*validation, spec, std::move(*patched), *warnings);
    };
  }
  const registry::Strategy* strategy =
      scope.subresource ? scope.subresource->strategy.get() : nullptr;
  auto updated = co_await scope.store.Update(scope.ns, scope.name, update, *options, strategy);
  AddWarnings(out, *warnings);
  if (!updated) {
    co_await WriteError(ctx, out, scope, updated.error());
    co_return;
  }
  const int code = updated->created ? 201 : 200;  // an apply may create
  co_await WriteObject(ctx, out, scope, *target, code, *updated->object);
}

}  // namespace endpoints::handlers
