// PATCH: JSON patch, merge patch and strategic merge patch, applied to the stored object
// (again, if it changed meanwhile). Server-side apply comes later: 415 until then.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/patch/json_patch.h"
#include "pkg/genericserver/apimachinery/patch/merge_patch.h"
#include "pkg/genericserver/apimachinery/patch/strategic_merge_patch.h"
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
  if (type != kJSONPatch && type != kMergePatch && (type != kStrategicPatch || !strategic_ok)) {
    std::vector<std::string> accepted = {kJSONPatch, kMergePatch};
    if (strategic_ok) accepted.push_back(kStrategicPatch);
    co_await WriteError(ctx, out, scope, apimachinery::NewUnsupportedMediaType(type, accepted));
    co_return;
  }
  (void)kApplyPatch;  // server-side apply: not yet
  auto options = ParseWriteOptions(ctx);
  auto validation = ParseFieldValidation(ctx);
  registry::Result<json> body = !options      ? std::unexpected(options.error())
                                : !validation ? std::unexpected(validation.error())
                                              : ParseJSON(ctx.request.body);
  if (!body) {
    co_await WriteError(ctx, out, scope, body.error());
    co_return;
  }
  auto patch_doc = std::make_shared<json>(std::move(*body));
  std::shared_ptr<const patch::PatchSchema> patch_schema = scope.spec.patch_schema;
  const std::string name = scope.name;
  const registry::ResourceSpec& spec = scope.spec;
  // The warnings of the last attempt win: each attempt starts from the stored object.
  auto warnings = std::make_shared<std::vector<std::string>>();
  registry::UpdateFunc apply = [&, patch_doc, patch_schema, type, name,
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
  const registry::Strategy* strategy =
      scope.subresource ? scope.subresource->strategy.get() : nullptr;
  auto updated = co_await scope.store.Update(scope.ns, scope.name, apply, *options, strategy);
  AddWarnings(out, *warnings);
  if (!updated) {
    co_await WriteError(ctx, out, scope, updated.error());
    co_return;
  }
  co_await WriteObject(ctx, out, scope, *target, 200, *updated->object);
}

}  // namespace endpoints::handlers
