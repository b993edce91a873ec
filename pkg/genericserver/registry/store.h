#pragma once
// registry::Store: the one generic implementation of every REST verb over storage, as
// upstream's genericregistry.Store. What differs between resources comes from the
// ResourceSpec and its Strategy. Objects are JSON in canonical form (keys sorted, as
// nlohmann::json dumps them), so that "nothing changed" is byte equality and a no-op
// update keeps the resourceVersion.
//
// Storage errors become API Status errors here and nowhere else (errors.cc).

#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/status.h"
#include "pkg/genericserver/authn/user.h"
#include "pkg/genericserver/registry/resource_spec.h"
#include "pkg/genericserver/server/awaitable.h"
#include "pkg/genericserver/storage/interface.h"

namespace audit {
class Context;
}  // namespace audit

namespace registry {

template <class T>
using Result = std::expected<T, apimachinery::Status>;

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;
  storage::ResourceVersionMatch match = storage::ResourceVersionMatch::kUnset;
  int64_t limit = 0;
  std::string continue_token;
  bool allow_bookmarks = false;             // watch
  std::optional<bool> send_initial_events;  // watch: absent, true or false
};

struct WriteOptions {
  bool dry_run = false;
  // The manager managedFields record the write under (?fieldManager, else the User-Agent's
  // program) and the subresource written through ("status", "scale"; "" for the object).
  std::string field_manager;
  std::string subresource;
  std::optional<authn::UserInfo> user;  // who asks (a CSR records its requester)
  // Where admission's warnings go (upstream's warning.AddWarning): the request's, which its
  // answer carries as Warning headers; null when nobody listens. Outlives the write.
  std::vector<std::string>* warnings = nullptr;
  // The request's audit event, for admission's annotations; null when it is not audited.
  // Used on the request's coroutine only.
  audit::Context* audit = nullptr;
  // Server-side apply: the update function computed managedFields itself, and a missing
  // object is created (not through a subresource: 404 there, as upstream).
  bool apply = false;
};

struct DeleteOptions {
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  std::string propagation_policy;  // "", "Orphan", "Background", "Foreground"
  std::optional<int64_t> grace_period_seconds;
  bool dry_run = false;
  std::optional<authn::UserInfo> user;           // who asks (admission)
  std::vector<std::string>* warnings = nullptr;  // as WriteOptions::warnings
  audit::Context* audit = nullptr;               // as WriteOptions::audit
};

// A deletion either removed the object (the Status to answer) or marked it for deletion
// (finalizers remain: the object, now with a deletionTimestamp).
struct DeleteResult {
  bool deleted = false;
  storage::ObjectPtr object;  // the object as stored last (deleted) or as marked
};

struct UpdateResult {
  storage::ObjectPtr object;
  bool created = false;
};

// Computes the new object from the stored one (null when there is none). Runs again if
// the object changed meanwhile, so it must have no side effects.
using UpdateFunc = std::function<Awaitable<Result<nlohmann::json>>(const nlohmann::json* old)>;

// Checks a new or changed object against the rest of the system (admission): for
// example that its namespace exists and is not terminating, or that who writes it holds
// what it grants. `options` carry who asks.
using AdmitFunc = std::function<Awaitable<std::optional<apimachinery::Status>>(
    const ResourceSpec& spec, const nlohmann::json& object, const nlohmann::json* old,
    const WriteOptions& options)>;
// The same, allowed to change the object (mutating admission).
using MutateFunc = std::function<Awaitable<std::optional<apimachinery::Status>>(
    const ResourceSpec& spec, nlohmann::json& object, const nlohmann::json* old,
    const WriteOptions& options)>;

// Admission of the deletion of `existing` (`name` in `ns`), once the preconditions held,
// before it is deleted or marked; again if it changed meanwhile (upstream's
// AdmissionToValidateObjectDeleteFunc, both phases).
using DeleteAdmitFunc = std::function<Awaitable<std::optional<apimachinery::Status>>(
    const ResourceSpec& spec, const std::string& ns, const std::string& name,
    const nlohmann::json& existing, const DeleteOptions& options)>;

// Admission of a Store's creates and updates in upstream's two phases: `mutate` before the
// strategy prepares and validates the object (it may change it), `validate` after (the
// object as it will be stored), and of its deletions (`delete_`). Any may be null. An
// AdmitFunc alone is a mutating-phase check that changes nothing (as upstream's
// NamespaceLifecycle is).
struct Admission {
  Admission() = default;
  Admission(std::nullptr_t) {}  // NOLINT(google-explicit-constructor): no admission
  Admission(AdmitFunc check);   // NOLINT(google-explicit-constructor)
  Admission(MutateFunc mutate, AdmitFunc validate, DeleteAdmitFunc delete_ = nullptr)
      : mutate(std::move(mutate)), validate(std::move(validate)), delete_(std::move(delete_)) {}
  MutateFunc mutate;
  AdmitFunc validate;
  DeleteAdmitFunc delete_;
};

class Store {
 public:
  Store(ResourceSpecPtr spec, std::shared_ptr<storage::Interface> storage,
        Admission admission = nullptr);

  const ResourceSpec& Spec() const { return *spec_; }
  const ResourceSpecPtr& SpecPtr() const { return spec_; }
  // "/configmaps/ns/name" (namespaced) or "/namespaces/name".
  std::string Key(std::string_view ns, std::string_view name) const;
  // The prefix of a list: "/configmaps/ns/", or "/configmaps/" for all namespaces.
  std::string Prefix(std::string_view ns) const;

  Awaitable<Result<storage::ObjectPtr>> Get(std::string ns, std::string name,
                                            std::string resource_version);
  Awaitable<Result<storage::ListResult>> List(std::string ns, ListOptions options);
  Awaitable<Result<storage::WatcherPtr>> Watch(std::string ns, ListOptions options);
  Awaitable<Result<storage::ObjectPtr>> Create(std::string ns, nlohmann::json object,
                                               WriteOptions options);
  // PUT, PATCH and subresources: `strategy` is the main resource's or a subresource's.
  Awaitable<Result<UpdateResult>> Update(std::string ns, std::string name, UpdateFunc update,
                                         WriteOptions options, const Strategy* strategy);
  Awaitable<Result<DeleteResult>> Delete(std::string ns, std::string name, DeleteOptions options);
  // The objects of namespace `ns` ("": all) as the watch cache holds them now, read at once;
  // nullopt when the store has no ready cache.
  std::optional<storage::ListResult> CachedList(std::string_view ns) const {
    return storage_->CachedList(Prefix(ns));
  }
  // The object as the watch cache holds it now (null: it holds none), read at once; nullopt
  // when the store has no ready cache.
  std::optional<storage::ObjectPtr> CachedGet(std::string_view ns, std::string_view name) const {
    return storage_->CachedGet(Key(ns, name));
  }
  // Deletes every object the options select; returns what was deleted or marked.
  Awaitable<Result<std::vector<storage::ObjectPtr>>> DeleteCollection(std::string ns,
                                                                      ListOptions list,
                                                                      DeleteOptions options);

  // A selection predicate for label and field selectors, or a 400 Status.
  Result<storage::SelectionPredicate> Predicate(const ListOptions& options) const;

 private:
  // Create-time metadata, preparation and validation; the JSON to store.
  Awaitable<Result<nlohmann::json>> PrepareCreate(const std::string& ns, nlohmann::json object,
                                                  const WriteOptions& options);
  // Update-time checks and preparation of `object` against `old`.
  Awaitable<Result<nlohmann::json>> PrepareUpdate(nlohmann::json object, const nlohmann::json& old,
                                                  const Strategy& strategy,
                                                  const WriteOptions& options);
  // Records the write in object's metadata.managedFields (not for apply, which did).
  void TrackManagedFields(const nlohmann::json* old, nlohmann::json& object,
                          const Strategy& strategy, const WriteOptions& options) const;
  apimachinery::Status Error(const storage::StorageError& e, std::string_view name) const;

  ResourceSpecPtr spec_;
  std::shared_ptr<storage::Interface> storage_;
  Admission admission_;
};

// An object parsed from storage (resourceVersion included).
nlohmann::json Parse(const storage::Object& object);
// What upstream answers when a body does not decode into the kind's Go type (400):
// "<Kind> in version \"<v>\" cannot be handled as a <Kind>: <why>".
apimachinery::Status DecodeError(const ResourceSpec& spec, std::string_view why);
// The body as upstream's decoding into the kind's Go type takes it: an object of this
// kind (apiVersion and kind filled in when absent), values of the schema's types, and
// the kind's own decoding rules (base64 data), then defaulted; the 400 otherwise.
std::optional<apimachinery::Status> DecodeBody(const ResourceSpec& spec, nlohmann::json& object);
// An object that was not stored (dry run): the JSON a client would have got.
storage::ObjectPtr Unstored(const nlohmann::json& object);

}  // namespace registry
