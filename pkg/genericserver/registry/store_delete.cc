// registry::Store::Delete and DeleteCollection: immediate deletion, or marking for
// deletion (deletionTimestamp) while finalizers remain.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/allocations.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/store.h"

namespace registry {

using nlohmann::json;

namespace {

// The garbage collector's finalizers for a propagation policy (upstream's
// deletionFinalizersForGarbageCollection). Returns whether the finalizers changed.
bool ApplyPropagationPolicy(json& object, const std::string& policy) {
  if (policy != "Orphan" && policy != "Foreground") return false;
  const std::string add = policy == "Orphan" ? "orphan" : "foregroundDeletion";
  const std::string drop = policy == "Orphan" ? "foregroundDeletion" : "orphan";
  json& meta = object["metadata"];
  json finalizers = meta.value("finalizers", json::array());
  if (!finalizers.is_array()) finalizers = json::array();
  bool changed = false;
  auto it = std::find(finalizers.begin(), finalizers.end(), drop);
  if (it != finalizers.end()) {
    finalizers.erase(it);
    changed = true;
  }
  if (std::find(finalizers.begin(), finalizers.end(), add) == finalizers.end()) {
    finalizers.push_back(add);
    changed = true;
  }
  if (changed) meta["finalizers"] = std::move(finalizers);
  return changed;
}

bool HasFinalizers(const json& object) {
  auto m = object.find("metadata");
  if (m == object.end()) return false;
  auto f = m->find("finalizers");
  return f != m->end() && f->is_array() && !f->empty();
}

constexpr int kAttempts = 100;

}  // namespace

Awaitable<Result<DeleteResult>> Store::Delete(std::string ns, std::string name,
                                              DeleteOptions options) {
  const std::string key = Key(ns, name);
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    storage::GetOptions newest;
    auto got = co_await storage_->Get(key, newest);
    if (!got) co_return std::unexpected(Error(got.error(), name));
    const json old = Parse(**got);
    if (options.precondition_uid && *options.precondition_uid != MetaString(old, "uid")) {
      co_return std::unexpected(apimachinery::NewConflict(
          spec_->Resource(), name,
          "Precondition failed: UID in precondition: " + *options.precondition_uid +
              ", UID in object meta: " + MetaString(old, "uid")));
    }
    if (options.precondition_resource_version &&
        *options.precondition_resource_version != MetaString(old, "resourceVersion")) {
      co_return std::unexpected(apimachinery::NewConflict(
          spec_->Resource(), name,
          "Precondition failed: ResourceVersion in precondition: " +
              *options.precondition_resource_version +
              ", ResourceVersion in object meta: " + MetaString(old, "resourceVersion")));
    }
    if (auto refused = spec_->strategy->RefuseDelete(old)) co_return std::unexpected(*refused);
    if (admission_.delete_) {
      if (auto denied = co_await admission_.delete_(*spec_, ns, name, old, options))
        co_return std::unexpected(*denied);
    }
    // Only what was read may be deleted or marked: anything newer starts over.
    storage::Preconditions as_read;
    as_read.resource_version = MetaString(old, "resourceVersion");

    json marked = old;
    bool changed = spec_->strategy->GarbageCollected() &&
                   ApplyPropagationPolicy(marked, options.propagation_policy);
    const bool kind_waits = spec_->strategy->PrepareForDelete(marked);
    changed = changed || marked != old;
    if (kind_waits || HasFinalizers(marked)) {
      json& meta = marked["metadata"];
      if (!meta.contains("deletionTimestamp")) {
        meta["deletionTimestamp"] = NowTimestamp();
        meta["deletionGracePeriodSeconds"] = 0;
        changed = true;
      }
      if (!changed) co_return DeleteResult{false, *got};
      if (options.dry_run) co_return DeleteResult{false, Unstored(marked)};
      const std::string body = marked.dump();
      storage::UpdateFunc mark = [&body](const storage::ObjectPtr&)
          -> Awaitable<std::expected<std::string, storage::StorageError>> { co_return body; };
      auto r = co_await storage_->GuaranteedUpdate(key, as_read, false, mark, *got);
      if (!r && r.error().code == storage::ErrorCode::kInvalidObj) continue;  // changed: again
      if (!r) co_return std::unexpected(Error(r.error(), name));
      co_return DeleteResult{false, *r};
    }
    if (options.dry_run) co_return DeleteResult{true, *got};
    auto deleted = co_await storage_->Delete(key, as_read, nullptr, *got);
    if (!deleted && deleted.error().code == storage::ErrorCode::kInvalidObj) continue;
    if (!deleted) co_return std::unexpected(Error(deleted.error(), name));
    if (spec_->allocations) co_await spec_->allocations->Free(Parse(**deleted), nullptr);
    co_return DeleteResult{true, *deleted};
  }
  co_return std::unexpected(
      apimachinery::NewConflict(spec_->Resource(), name, "the object keeps changing; try again"));
}

Awaitable<Result<std::vector<storage::ObjectPtr>>> Store::DeleteCollection(std::string ns,
                                                                           ListOptions list,
                                                                           DeleteOptions options) {
  list.limit = 0;
  list.continue_token.clear();
  auto listed = co_await List(ns, list);
  if (!listed) co_return std::unexpected(listed.error());
  std::vector<storage::ObjectPtr> out;
  for (const storage::ObjectPtr& item : listed->items) {
    const json object = Parse(*item);
    auto r = co_await Delete(MetaString(object, "namespace"), MetaString(object, "name"), options);
    if (!r) {
      if (r.error().code == 404) continue;  // gone meanwhile
      co_return std::unexpected(r.error());
    }
    out.push_back(r->object);
  }
  co_return out;
}

}  // namespace registry
