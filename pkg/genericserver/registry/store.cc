#include "pkg/genericserver/registry/store.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/labels/field_selector.h"
#include "pkg/genericserver/apimachinery/labels/selector.h"
#include "pkg/genericserver/apimachinery/managedfields/field_manager.h"
#include "pkg/genericserver/apimachinery/schema/typecheck.h"
#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/allocations.h"
#include "pkg/genericserver/registry/errors.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/util/uuid.h"

namespace registry {

using nlohmann::json;
namespace v = apimachinery::validation;

namespace {

// Upstream retries a generated name that collides a few times before giving up.
constexpr int kGenerateNameAttempts = 8;

}  // namespace

// The body as upstream's decoding into the kind's Go type takes it: an object of this
// kind (apiVersion and kind filled in when absent), values of the schema's types, and
// the kind's own decoding rules (base64 data); a 400 otherwise.
std::optional<apimachinery::Status> DecodeBody(const ResourceSpec& spec, json& object) {
  if (!object.is_object()) {
    return apimachinery::NewBadRequest("the object provided is not a JSON object");
  }
  if (object.contains("apiVersion") && object["apiVersion"] != spec.GroupVersion()) {
    return apimachinery::NewBadRequest(
        "the API version in the data (" + object["apiVersion"].dump() +
        ") does not match the expected API version (" + spec.GroupVersion() + ")");
  }
  if (object.contains("kind") && object["kind"] != spec.kind) {
    return apimachinery::NewBadRequest("the kind in the data (" + object["kind"].dump() +
                                       ") does not match the expected kind (" + spec.kind + ")");
  }
  if (!spec.unstructured && spec.components && !spec.schema_name.empty()) {
    if (auto bad = apimachinery::schema::CheckTypes(object, *spec.components, spec.schema_name)) {
      return DecodeError(spec, *bad);
    }
  }
  if (auto bad = spec.strategy->Decode(object)) return DecodeError(spec, *bad);
  object["apiVersion"] = spec.GroupVersion();
  object["kind"] = spec.kind;
  if (!object.contains("metadata") || !object["metadata"].is_object()) {
    object["metadata"] = json::object();
  }
  spec.strategy->Default(object);
  return std::nullopt;
}

apimachinery::Status DecodeError(const ResourceSpec& spec, std::string_view why) {
  return apimachinery::NewBadRequest(spec.kind + " in version \"" + spec.version +
                                     "\" cannot be handled as a " + spec.kind + ": " +
                                     std::string(why));
}

json Parse(const storage::Object& object) { return json::parse(*object.json); }

storage::ObjectPtr Unstored(const json& object) {
  auto o = std::make_shared<storage::Object>();
  o->json = std::make_shared<const std::string>(object.dump());
  return o;
}

Store::Store(ResourceSpecPtr spec, std::shared_ptr<storage::Interface> storage, Admission admission)
    : spec_(std::move(spec)), storage_(std::move(storage)), admission_(std::move(admission)) {}

Admission::Admission(AdmitFunc check) {
  if (!check) return;
  mutate = [check = std::move(check)](const ResourceSpec& spec, json& object, const json* old,
                                      const WriteOptions& options) {
    return check(spec, object, old, options);
  };
}

std::string Store::Key(std::string_view ns, std::string_view name) const {
  if (spec_->namespaced) {
    return spec_->storage_prefix + "/" + std::string(ns) + "/" + std::string(name);
  }
  return spec_->storage_prefix + "/" + std::string(name);
}

std::string Store::Prefix(std::string_view ns) const {
  if (spec_->namespaced && !ns.empty()) return spec_->storage_prefix + "/" + std::string(ns) + "/";
  return spec_->storage_prefix + "/";
}

apimachinery::Status Store::Error(const storage::StorageError& e, std::string_view name) const {
  return ToStatus(e, spec_->Resource(), name);
}

Result<storage::SelectionPredicate> Store::Predicate(const ListOptions& options) const {
  if (options.label_selector.empty() && options.field_selector.empty()) {
    return storage::SelectionPredicate{};
  }
  auto labels = apimachinery::labels::Parse(options.label_selector);
  if (!labels) return std::unexpected(apimachinery::NewBadRequest(labels.error()));
  auto fields = apimachinery::fields::ParseSelector(options.field_selector);
  if (!fields) return std::unexpected(apimachinery::NewBadRequest(fields.error()));
  for (const auto& r : fields->Requirements()) {
    // Cluster-scoped kinds have no metadata.namespace field (upstream's ObjectMetaFieldsSet).
    if (r.field == "metadata.name" || (r.field == "metadata.namespace" && spec_->namespaced) ||
        spec_->fields.contains(r.field)) {
      continue;
    }
    return std::unexpected(
        apimachinery::NewBadRequest(apimachinery::fields::UnsupportedFieldMessage(
            spec_->Resource(), r.field, spec_->unstructured != nullptr)));
  }
  auto spec = spec_;
  auto label_selector = std::make_shared<apimachinery::labels::Selector>(std::move(*labels));
  auto field_selector = std::make_shared<apimachinery::fields::Selector>(std::move(*fields));
  return storage::SelectionPredicate{
      [spec, label_selector, field_selector](const storage::Object& o) {
        const json object = json::parse(*o.json, nullptr, false);
        if (object.is_discarded()) return false;
        if (!label_selector->Empty()) {
          std::map<std::string, std::string> labels;
          if (auto m = object.find("metadata"); m != object.end()) {
            if (auto l = m->find("labels"); l != m->end() && l->is_object()) {
              for (auto it = l->begin(); it != l->end(); ++it) {
                if (it->is_string()) labels[it.key()] = it->get<std::string>();
              }
            }
          }
          if (!label_selector->Matches(labels)) return false;
        }
        if (field_selector->Empty()) return true;
        return field_selector->Matches([&](std::string_view field) -> std::optional<std::string> {
          if (field == "metadata.name") return MetaString(object, "name");
          if (field == "metadata.namespace") return MetaString(object, "namespace");
          auto it = spec->fields.find(std::string(field));
          if (it == spec->fields.end()) return std::nullopt;
          return it->second(object);
        });
      }};
}

Awaitable<Result<storage::ObjectPtr>> Store::Get(std::string ns, std::string name,
                                                 std::string resource_version) {
  storage::GetOptions options;
  options.resource_version = std::move(resource_version);
  auto got = co_await storage_->Get(Key(ns, name), options);
  if (!got) co_return std::unexpected(Error(got.error(), name));
  co_return *got;
}

Awaitable<Result<storage::ListResult>> Store::List(std::string ns, ListOptions options) {
  auto predicate = Predicate(options);
  if (!predicate) co_return std::unexpected(predicate.error());
  storage::ListOptions list;
  list.resource_version = options.resource_version;
  list.match = options.match;
  list.limit = options.limit;
  list.continue_token = options.continue_token;
  list.predicate = std::move(*predicate);
  auto got = co_await storage_->GetList(Prefix(ns), list);
  if (!got) co_return std::unexpected(Error(got.error(), ""));
  co_return std::move(*got);
}

Awaitable<Result<storage::WatcherPtr>> Store::Watch(std::string ns, ListOptions options) {
  auto predicate = Predicate(options);
  if (!predicate) co_return std::unexpected(predicate.error());
  storage::WatchOptions watch;
  watch.resource_version = options.resource_version;
  watch.predicate = std::move(*predicate);
  watch.allow_bookmarks = options.allow_bookmarks;
  // Storage sends the current state first for "" and "0"; sendInitialEvents says so outright.
  const bool from_state = options.resource_version.empty() || options.resource_version == "0";
  if (options.send_initial_events == true && !from_state) {
    watch.resource_version = "";  // the state now is not older than the one asked for
  } else if (options.send_initial_events == false && from_state) {
    auto now = co_await storage_->CurrentRevision();
    if (!now) co_return std::unexpected(Error(now.error(), ""));
    watch.resource_version = std::to_string(*now);
  }
  watch.send_initial_events = options.send_initial_events.value_or(false);
  auto got = co_await storage_->Watch(Prefix(ns), watch);
  if (!got) co_return std::unexpected(Error(got.error(), ""));
  co_return std::move(*got);
}

Awaitable<Result<json>> Store::PrepareCreate(const std::string& ns, json object,
                                             const WriteOptions& options) {
  const ResourceSpec& spec = *spec_;
  if (auto bad = DecodeBody(spec, object)) co_return std::unexpected(*bad);
  if (spec.namespaced) {
    const std::string given = MetaString(object, "namespace");
    if (given.empty()) {
      object["metadata"]["namespace"] = ns;
    } else if (given != ns) {
      co_return std::unexpected(apimachinery::NewBadRequest(
          "the namespace of the provided object does not match the namespace sent on the "
          "request"));
    }
  } else {
    object["metadata"].erase("namespace");
  }
  // Mutating admission sees no generated name yet, as upstream's.
  if (admission_.mutate) {
    if (auto denied = co_await admission_.mutate(spec, object, nullptr, options))
      co_return std::unexpected(*denied);
  }
  json& meta = object["metadata"];
  if (MetaString(object, "name").empty() && !MetaString(object, "generateName").empty()) {
    meta["name"] = GenerateName(MetaString(object, "generateName"));
  }
  meta["uid"] = util::NewUUID();
  meta["creationTimestamp"] = NowTimestamp();
  for (const char* field :
       {"resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"}) {
    meta.erase(field);
  }
  if (spec.strategy->TracksGeneration()) {
    meta["generation"] = 1;
  } else {
    meta.erase("generation");
  }
  spec.strategy->PrepareForCreate(object);
  // After the strategy reset what a client may not set: only what the write sets counts.
  TrackManagedFields(nullptr, object, *spec.strategy, options);
  if (options.user) spec.strategy->RecordRequester(object, *options.user);
  NormalizeMetadata(object);
  FieldErrors errors = ValidateObjectMeta(object, spec.namespaced, spec.strategy->Names());
  for (auto& e : spec.strategy->Validate(object)) errors.push_back(std::move(e));
  if (errors.empty()) errors = ValidateNamePathSegments(object);
  if (!errors.empty()) {
    co_return std::unexpected(
        v::NewInvalid(spec.Kind().group, spec.kind, MetaString(object, "name"), errors));
  }
  spec.strategy->Canonicalize(object);
  if (admission_.validate) {
    if (auto denied = co_await admission_.validate(spec, object, nullptr, options))
      co_return std::unexpected(*denied);
  }
  co_return object;
}

Awaitable<Result<storage::ObjectPtr>> Store::Create(std::string ns, json object,
                                                    WriteOptions options) {
  const bool generated = MetaString(object, "name").empty();
  const std::string prefix = MetaString(object, "generateName");
  auto prepared = co_await PrepareCreate(ns, std::move(object), options);
  if (!prepared) co_return std::unexpected(prepared.error());
  json& created = *prepared;
  const Allocations* allocations = spec_->allocations.get();
  if (allocations) {
    if (auto refused = co_await allocations->Reserve(created, nullptr, options.dry_run)) {
      co_return std::unexpected(*refused);
    }
  }
  if (options.dry_run) co_return Unstored(created);
  for (int attempt = 1;; ++attempt) {
    const std::string name = MetaString(created, "name");
    auto r = co_await storage_->Create(Key(ns, name), created.dump());
    if (r) co_return *r;
    if (r.error().code == storage::ErrorCode::kAlreadyExists && generated &&
        attempt < kGenerateNameAttempts) {
      created["metadata"]["name"] = GenerateName(prefix);
      continue;
    }
    if (allocations) co_await allocations->Free(created, nullptr);
    co_return std::unexpected(Error(r.error(), name));
  }
}

void Store::TrackManagedFields(const json* old, json& object, const Strategy& strategy,
                               const WriteOptions& options) const {
  if (options.apply || !spec_->field_manager) return;
  apimachinery::managedfields::WriteContext write{options.field_manager, options.subresource,
                                                  strategy.ResetFields(object, old)};
  spec_->field_manager->Update(old, object, write);
}

Awaitable<Result<json>> Store::PrepareUpdate(json object, const json& old, const Strategy& strategy,
                                             const WriteOptions& options) {
  const ResourceSpec& spec = *spec_;
  if (auto bad = DecodeBody(spec, object)) co_return std::unexpected(*bad);
  json& meta = object["metadata"];
  const json& prev = old["metadata"];
  // What a client may leave out is taken from the stored object; what it may not
  // change is validated below.
  for (const char* field : {"uid", "namespace"}) {
    if (!meta.contains(field) && prev.contains(field)) meta[field] = prev[field];
  }
  // Upstream ignores a changed creationTimestamp rather than refusing it.
  if (prev.contains("creationTimestamp")) meta["creationTimestamp"] = prev["creationTimestamp"];
  for (const char* field : {"deletionTimestamp", "deletionGracePeriodSeconds"}) {
    if (prev.contains(field)) {
      meta[field] = prev[field];
    } else {
      meta.erase(field);
    }
  }
  meta.erase("selfLink");
  strategy.PrepareForUpdate(object, old);
  TrackManagedFields(&old, object, strategy, options);
  NormalizeMetadata(object);
  if (strategy.TracksGeneration() || spec.strategy->TracksGeneration()) {
    int64_t generation = prev.value("generation", int64_t{1});
    if (spec.strategy->GenerationChanged(object, old)) ++generation;
    object["metadata"]["generation"] = generation;
  } else {
    object["metadata"].erase("generation");
  }
  if (admission_.mutate) {
    if (auto denied = co_await admission_.mutate(spec, object, &old, options))
      co_return std::unexpected(*denied);
  }
  FieldErrors errors =
      ValidateObjectMetaUpdate(object, old, spec.namespaced, spec.strategy->Names());
  for (auto& e : strategy.ValidateUpdate(object, old)) errors.push_back(std::move(e));
  if (!errors.empty()) {
    co_return std::unexpected(
        v::NewInvalid(spec.Kind().group, spec.kind, MetaString(old, "name"), errors));
  }
  strategy.Canonicalize(object);
  if (admission_.validate) {
    if (auto denied = co_await admission_.validate(spec, object, &old, options))
      co_return std::unexpected(*denied);
  }
  co_return object;
}

}  // namespace registry
