// DELETE of one object and of a collection, with DeleteOptions from the body and the
// query (preconditions, propagationPolicy, gracePeriodSeconds, dryRun).
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/audit/context.h"
#include "pkg/genericserver/endpoints/handlers/decode.h"
#include "pkg/genericserver/endpoints/handlers/handlers.h"
#include "pkg/genericserver/endpoints/handlers/options.h"
#include "pkg/genericserver/endpoints/handlers/write_object.h"

namespace endpoints::handlers {

using nlohmann::json;
namespace v = apimachinery::validation;

namespace {

registry::Result<registry::DeleteOptions> ParseDeleteOptions(RequestContext& ctx) {
  registry::DeleteOptions o;
  o.user = ctx.user;
  o.warnings = &ctx.warnings;
  o.audit = ctx.audit;
  json body = json::object();
  if (!ctx.request.body.empty()) {
    auto parsed = BodyMediaType(ctx) == kProtobufType ? DecodeObject(ctx, nullptr)
                                                      : ParseJSON(ctx.request.body);
    if (!parsed) return std::unexpected(parsed.error());
    if (!parsed->is_object()) {
      return std::unexpected(
          apimachinery::NewBadRequest("the DeleteOptions body is not an object"));
    }
    body = std::move(*parsed);
    if (ctx.audit) ctx.audit->LogRequestObject(body);
  }
  const auto& q = ctx.request.query;
  o.propagation_policy = q.Get("propagationPolicy").value_or(body.value("propagationPolicy", ""));
  if (auto orphan = body.find("orphanDependents"); orphan != body.end() && orphan->is_boolean()) {
    if (o.propagation_policy.empty())
      o.propagation_policy = orphan->get<bool>() ? "Orphan" : "Background";
  }
  if (auto grace = q.Get("gracePeriodSeconds")) {
    o.grace_period_seconds = std::atoll(grace->c_str());
  } else if (body.contains("gracePeriodSeconds") &&
             body["gracePeriodSeconds"].is_number_integer()) {
    o.grace_period_seconds = body["gracePeriodSeconds"].get<int64_t>();
  }
  if (auto pre = body.find("preconditions"); pre != body.end() && pre->is_object()) {
    if (pre->contains("uid") && (*pre)["uid"].is_string()) o.precondition_uid = (*pre)["uid"];
    if (pre->contains("resourceVersion") && (*pre)["resourceVersion"].is_string()) {
      o.precondition_resource_version = (*pre)["resourceVersion"];
    }
  }
  std::vector<std::string> dry_run = q.Values("dryRun");
  if (auto d = body.find("dryRun"); d != body.end() && d->is_array()) {
    for (const auto& value : *d)
      dry_run.push_back(value.is_string() ? value.get<std::string>() : value.dump());
  }
  std::vector<v::FieldError> errors;
  for (const std::string& d : dry_run) {
    if (d != "All") errors.push_back(v::FieldNotSupported("dryRun", d, {"All"}));
    o.dry_run = true;
  }
  const std::string& p = o.propagation_policy;
  if (!p.empty() && p != "Orphan" && p != "Background" && p != "Foreground") {
    errors.push_back(v::FieldNotSupported("propagationPolicy", p,
                                          {"Foreground", "Background", "Orphan", "nil"}));
  }
  if (o.grace_period_seconds && *o.grace_period_seconds < 0) {
    errors.push_back(v::FieldInvalid("gracePeriodSeconds", std::to_string(*o.grace_period_seconds),
                                     "must be greater than or equal to 0"));
  }
  if (!errors.empty())
    return std::unexpected(v::NewInvalid("meta.k8s.io", "DeleteOptions", "", errors));
  return o;
}

}  // namespace

Awaitable<void> ServeDelete(RequestContext& ctx, ResponseWriter& out, const Scope& scope) {
  auto target = co_await Negotiate(ctx, out, scope, false);
  if (!target) co_return;
  auto options = ParseDeleteOptions(ctx);
  if (!options) {
    co_await WriteError(ctx, out, scope, options.error());
    co_return;
  }
  auto r = co_await scope.store.Delete(scope.ns, scope.name, *options);
  if (!r) {
    co_await WriteError(ctx, out, scope, r.error());
    co_return;
  }
  if (!r->deleted) {
    // Marked for deletion: the object, with its deletionTimestamp.
    co_await WriteObject(ctx, out, scope, *target, 200, *r->object);
    co_return;
  }
  const json deleted = json::parse(*r->object->json);
  const std::string uid = deleted["metadata"].value("uid", "");
  co_await WriteDocument(ctx, out, *target, 200,
                         json::parse(apimachinery::EncodeStatus(
                             apimachinery::NewDeleted(scope.spec.Resource(), scope.name, uid))));
}

Awaitable<void> ServeDeleteCollection(RequestContext& ctx, ResponseWriter& out,
                                      const Scope& scope) {
  auto target = co_await Negotiate(ctx, out, scope, false);
  if (!target) co_return;
  auto list = ParseListOptions(ctx, false);
  if (!list) {
    co_await WriteError(ctx, out, scope, list.error());
    co_return;
  }
  auto options = ParseDeleteOptions(ctx);
  if (!options) {
    co_await WriteError(ctx, out, scope, options.error());
    co_return;
  }
  auto r = co_await scope.store.DeleteCollection(scope.ns, std::move(*list), *options);
  if (!r) {
    co_await WriteError(ctx, out, scope, r.error());
    co_return;
  }
  storage::ListResult deleted;
  deleted.items = std::move(*r);
  co_await WriteList(ctx, out, scope, *target, deleted);
}

}  // namespace endpoints::handlers
