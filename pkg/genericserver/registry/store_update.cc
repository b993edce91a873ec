// registry::Store::Update: PUT, PATCH and subresource writes.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/allocations.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/store.h"

namespace registry {

using nlohmann::json;
namespace v = apimachinery::validation;

namespace {
constexpr char kModified[] =
    "the object has been modified; please apply your changes to the latest version and try again";
}  // namespace

Awaitable<Result<UpdateResult>> Store::Update(std::string ns, std::string name, UpdateFunc update,
                                              WriteOptions options, const Strategy* strategy) {
  const Strategy& s = strategy ? *strategy : *spec_->strategy;
  const std::string key = Key(ns, name);
  // Apply creates what is missing, except through a subresource (the status of nothing).
  const bool may_create = s.AllowCreateOnUpdate() || (options.apply && options.subresource.empty());
  bool created = false;
  // The update removed what kept an object that is being deleted: it goes instead.
  bool finalized = false;
  storage::Preconditions finalized_at;

  // What the last computed object reserved beyond the stored one, and that stored one.
  const Allocations* allocations = spec_->allocations.get();
  std::optional<json> reserved;
  std::optional<json> last_old;

  // The object to store, computed from the stored one (null: none). Runs again when the
  // stored object changed meanwhile.
  auto compute = [&](const storage::ObjectPtr& current) -> Awaitable<Result<json>> {
    created = finalized = false;
    std::optional<json> old;
    if (current) old = Parse(*current);
    const json* stored = old ? &*old : nullptr;
    // A retry: what the previous attempt reserved is freed before reserving again.
    if (reserved && !options.dry_run) co_await allocations->Free(*reserved, stored);
    reserved.reset();
    last_old = old;
    auto updated = co_await update(stored);
    if (!updated) co_return std::unexpected(updated.error());
    json object = std::move(*updated);
    if (!object.is_object()) {
      co_return std::unexpected(
          apimachinery::NewBadRequest("the object provided is not a JSON object"));
    }
    if (!object.contains("metadata") || !object["metadata"].is_object()) {
      object["metadata"] = json::object();
    }
    const std::string body_name = MetaString(object, "name");
    if (!body_name.empty() && body_name != name) {
      co_return std::unexpected(
          apimachinery::NewBadRequest("the name of the object (" + body_name +
                                      ") does not match the name on the URL (" + name + ")"));
    }
    object["metadata"]["name"] = name;
    if (!old) {
      if (!may_create)
        co_return std::unexpected(apimachinery::NewNotFound(spec_->Resource(), name));
      created = true;
      object["metadata"].erase("resourceVersion");
      auto prepared = co_await PrepareCreate(ns, std::move(object), options);
      if (!prepared || !allocations) co_return prepared;
      if (auto refused = co_await allocations->Reserve(*prepared, nullptr, options.dry_run)) {
        co_return std::unexpected(*refused);
      }
      reserved = *prepared;
      co_return prepared;
    }
    // Optimistic concurrency: a resourceVersion given must be the stored one.
    const std::string rv = MetaString(object, "resourceVersion");
    if (!rv.empty() && rv != MetaString(*old, "resourceVersion")) {
      co_return std::unexpected(apimachinery::NewConflict(spec_->Resource(), name, kModified));
    }
    if (rv.empty() && !s.AllowUnconditionalUpdate()) {
      // Upstream names the resource, not the kind, in this one error.
      co_return std::unexpected(
          v::NewInvalid(spec_->group, spec_->plural, name, {[] {
                          v::FieldError e = v::FieldInvalid("metadata.resourceVersion", "0x0",
                                                            "must be specified for an update");
                          e.value_form = v::ValueForm::kVerbatim;  // a uint64 printed with %#v
                          return e;
                        }()}));
    }
    auto prepared = co_await PrepareUpdate(std::move(object), *old, s, options);
    if (!prepared) co_return std::unexpected(prepared.error());
    if (allocations) {
      if (auto refused = co_await allocations->Reserve(*prepared, &*old, options.dry_run)) {
        co_return std::unexpected(*refused);
      }
      reserved = *prepared;
    }
    if (prepared->at("metadata").contains("deletionTimestamp") &&
        spec_->strategy->Finalized(*prepared)) {
      finalized = true;
      finalized_at.uid = MetaString(*old, "uid");
      finalized_at.resource_version = MetaString(*old, "resourceVersion");
    }
    co_return prepared;
  };

  if (options.dry_run) {
    storage::GetOptions newest;
    auto got = co_await storage_->Get(key, newest);
    storage::ObjectPtr current;
    if (got) {
      current = *got;
    } else if (got.error().code != storage::ErrorCode::kNotFound) {
      co_return std::unexpected(Error(got.error(), name));
    } else if (!may_create) {
      co_return std::unexpected(apimachinery::NewNotFound(spec_->Resource(), name));
    }
    auto r = co_await compute(current);
    if (!r) co_return std::unexpected(r.error());
    if (current) (*r)["metadata"]["resourceVersion"] = std::to_string(current->revision);
    co_return UpdateResult{Unstored(*r), created};
  }

  storage::UpdateFunc try_update = [&](const storage::ObjectPtr& current)
      -> Awaitable<std::expected<std::string, storage::StorageError>> {
    auto r = co_await compute(current);
    if (!r) co_return std::unexpected(storage::CallerError(r.error()));
    // Signalled with an error without a Status: no write, the object is deleted below.
    if (finalized) {
      storage::StorageError stop;
      stop.code = storage::ErrorCode::kCallerError;
      co_return std::unexpected(stop);
    }
    co_return r->dump();
  };
  storage::Preconditions none;
  auto r = co_await storage_->GuaranteedUpdate(key, none, may_create, try_update, nullptr);
  if (!r && finalized && r.error().code == storage::ErrorCode::kCallerError && !r.error().status) {
    auto deleted = co_await storage_->Delete(key, finalized_at, nullptr, nullptr);
    if (!deleted) co_return std::unexpected(Error(deleted.error(), name));
    if (allocations) co_await allocations->Free(Parse(**deleted), nullptr);
    co_return UpdateResult{*deleted, false};
  }
  if (allocations) {
    if (!r && reserved) {
      const json* kept = last_old ? &*last_old : nullptr;
      co_await allocations->Free(*reserved, kept);
    } else if (r && last_old) {
      const json stored = Parse(**r);
      co_await allocations->Free(*last_old, &stored);
    }
  }
  if (!r) co_return std::unexpected(Error(r.error(), name));
  co_return UpdateResult{*r, created};
}

}  // namespace registry
