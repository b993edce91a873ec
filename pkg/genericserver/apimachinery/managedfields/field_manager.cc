#include "pkg/genericserver/apimachinery/managedfields/field_manager.h"

#include <algorithm>
#include <map>

#include "pkg/genericserver/apimachinery/managedfields/entries.h"
#include "pkg/genericserver/apimachinery/typed/operations.h"
#include "pkg/genericserver/apimachinery/typed/schema.h"
#include "pkg/util/timestamp.h"

namespace apimachinery::managedfields {

using fieldpath::Path;
using fieldpath::PathElement;
using fieldpath::Set;
using nlohmann::json;

namespace {

constexpr size_t kMaxUpdateManagers = 10;
constexpr char kAncientChanges[] = "ancient-changes";
constexpr char kBeforeFirstApply[] = "before-first-apply";
constexpr char kLastApplied[] = "kubectl.kubernetes.io/last-applied-configuration";

Path MakePath(std::initializer_list<const char*> names) {
  Path p;
  for (const char* n : names) p.push_back(PathElement::Field(n));
  return p;
}

// Fields no manager owns: identity and bookkeeping (upstream's stripMeta).
const Set& StrippedFields() {
  static const Set fields = [] {
    Set s;
    for (const Path& p :
         {MakePath({"apiVersion"}), MakePath({"kind"}), MakePath({"metadata"}),
          MakePath({"metadata", "name"}), MakePath({"metadata", "namespace"}),
          MakePath({"metadata", "creationTimestamp"}), MakePath({"metadata", "selfLink"}),
          MakePath({"metadata", "uid"}), MakePath({"metadata", "clusterName"}),
          MakePath({"metadata", "generation"}), MakePath({"metadata", "managedFields"}),
          MakePath({"metadata", "resourceVersion"})}) {
      s.Insert(p);
    }
    return s;
  }();
  return fields;
}

Set ResetSet(const ResetFields& reset) {
  Set s;
  for (const auto& names : reset) {
    Path p;
    for (const std::string& n : names) p.push_back(PathElement::Field(n));
    s.Insert(p);
  }
  return s;
}

void EraseManagedFields(json& object) {
  if (object.is_object() && object.contains("metadata") && object["metadata"].is_object()) {
    object["metadata"].erase("managedFields");
  }
}

// The object's kubectl.kubernetes.io/last-applied-configuration annotation, if it has one.
const json* LastApplied(const json& object) {
  if (!object.is_object()) return nullptr;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return nullptr;
  auto annotations = meta->find("annotations");
  if (annotations == meta->end() || !annotations->is_object()) return nullptr;
  auto it = annotations->find(kLastApplied);
  return it != annotations->end() && it->is_string() ? &*it : nullptr;
}

// What changed from `before` to `after`, but for the fields the write cannot change.
typed::Comparison CompareWithout(const json& before, const json& after, const typed::Type& root,
                                 const Set& reset, const json* skip = nullptr) {
  typed::Comparison c = typed::Compare(&before, &after, root, skip);
  c.added = c.added.RecursiveDifference(reset);
  c.modified = c.modified.RecursiveDifference(reset);
  c.removed = c.removed.RecursiveDifference(reset);
  return c;
}

// This write's objects as the kind's other versions see them. Per call; one thread.
class VersionViews {
 public:
  VersionViews(const FieldManager& self, std::string own)
      : versions_(self.versions()), own_(std::move(own)), own_root_(&self.schema().Root()) {}

  // The schema of `version`'s objects; null when the kind does not convert to it.
  const typed::Type* Root(const std::string& version) {
    if (version == own_) return own_root_;
    if (!versions_) return nullptr;
    auto it = managers_.find(version);
    if (it == managers_.end()) it = managers_.emplace(version, versions_->Manager(version)).first;
    return it->second ? &it->second->schema().Root() : nullptr;
  }
  // An object of this version as `version` has it, and back.
  std::optional<json> To(const json& own, const std::string& version) const {
    if (version == own_) return own;
    if (!versions_) return std::nullopt;
    return versions_->Convert(own, own_, version);
  }
  std::optional<json> From(const json& other, const std::string& version) const {
    if (version == own_) return other;
    if (!versions_) return std::nullopt;
    return versions_->Convert(other, version, own_);
  }

 private:
  std::shared_ptr<const KindVersions> versions_;
  std::string own_;
  const typed::Type* own_root_;
  std::map<std::string, std::shared_ptr<const FieldManager>> managers_;  // kept alive
};

// What a write changed (`before` to `after`, objects of this version) as each manager's
// version sees it (upstream's Updater compares the objects converted to the version of every
// manager); a manager of a version that does not convert is compared in this one.
class Changes {
 public:
  Changes(VersionViews& views, const std::string& own, const json& before, const json& after,
          Set reset, typed::Comparison mine)
      : views_(views), own_(own), before_(before), after_(after), reset_(std::move(reset)) {
    at_.emplace(own, std::move(mine));
  }

  const typed::Comparison& Own() const { return at_.at(own_); }
  const typed::Comparison& At(const std::string& version) {
    auto it = at_.find(version);
    if (it != at_.end()) return it->second;
    const typed::Type* root = views_.Root(version);
    std::optional<json> before = root ? views_.To(before_, version) : std::nullopt;
    std::optional<json> after = before ? views_.To(after_, version) : std::nullopt;
    if (!after) return Own();
    EraseManagedFields(*before);
    EraseManagedFields(*after);
    return at_.emplace(version, CompareWithout(*before, *after, *root, reset_)).first->second;
  }

 private:
  VersionViews& views_;
  const std::string& own_;
  const json& before_;
  const json& after_;
  Set reset_;
  std::map<std::string, typed::Comparison> at_;
};

std::string Now() { return util::FormatTime(std::chrono::system_clock::now()); }

Entry* Find(Entries& entries, const Entry& who) {
  for (Entry& e : entries) {
    if (e.SameManager(who)) return &e;
  }
  return nullptr;
}

// At most kMaxUpdateManagers Update entries: the oldest fold into "ancient-changes" of
// their apiVersion.
void CapUpdateManagers(Entries& entries) {
  std::vector<size_t> updates;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].applied()) updates.push_back(i);
  }
  if (updates.size() <= kMaxUpdateManagers) return;
  std::stable_sort(updates.begin(), updates.end(), [&](size_t a, size_t b) {
    if (entries[a].time != entries[b].time) return entries[a].time < entries[b].time;
    return entries[a].manager < entries[b].manager;
  });
  std::vector<bool> drop(entries.size(), false);
  std::map<std::string, size_t> first_of_version;
  size_t count = updates.size();
  for (size_t i : updates) {
    if (count <= kMaxUpdateManagers) break;
    Entry& e = entries[i];
    auto first = first_of_version.find(e.api_version);
    if (first == first_of_version.end()) {
      first_of_version[e.api_version] = i;
      continue;
    }
    Entry& bucket = entries[first->second];
    if (bucket.manager != kAncientChanges || !bucket.subresource.empty()) {
      bucket.manager = kAncientChanges;
      bucket.subresource.clear();
    }
    bucket.set = e.set.Union(bucket.set);
    if (bucket.time < e.time) bucket.time = e.time;
    drop[i] = true;
    --count;
  }
  Entries kept;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!drop[i]) kept.push_back(std::move(entries[i]));
  }
  entries = std::move(kept);
}

void SetManagedFields(json& object, const Entries& entries) {
  json& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object();
  if (entries.empty()) {
    meta.erase("managedFields");
  } else {
    meta["managedFields"] = Encode(entries);
  }
}

struct Conflict {
  std::string manager;  // printed as upstream's printManager prints the entry
  Path path;
};

std::string PrintManager(const Entry& e) {
  std::string out = json(e.manager).dump();
  if (!e.subresource.empty()) out += " with subresource " + json(e.subresource).dump();
  if (!e.applied()) out += " using " + e.api_version;
  return out;
}

Status ConflictStatus(std::vector<Conflict> conflicts) {
  std::stable_sort(conflicts.begin(), conflicts.end(),
                   [](const Conflict& a, const Conflict& b) { return a.manager < b.manager; });
  Status s;
  s.code = 409;
  s.reason = "Conflict";
  StatusDetails details;
  for (const Conflict& c : conflicts) {
    details.causes.push_back(
        {"FieldManagerConflict", "conflict with " + c.manager, fieldpath::PathString(c.path)});
  }
  s.details = std::move(details);
  if (conflicts.size() == 1) {
    s.message = "Apply failed with 1 conflict: conflict with " + conflicts[0].manager + ": " +
                fieldpath::PathString(conflicts[0].path);
    return s;
  }
  std::string text;
  std::string current;
  for (const Conflict& c : conflicts) {
    if (c.manager != current) {
      if (!text.empty()) text += "\n";
      text += "conflicts with " + c.manager + ":";
      current = c.manager;
    }
    text += "\n- " + fieldpath::PathString(c.path);
  }
  s.message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: " + text;
  return s;
}

// What a change takes from every manager but `except`: the fields it modified or added, and
// those it removed, in the manager's version.
void TakeOwnership(Entries& entries, Changes& changes, const Entry* except) {
  for (Entry& e : entries) {
    if (except && e.SameManager(*except)) continue;
    const typed::Comparison& cmp = changes.At(e.api_version);
    e.set = e.set.Difference(cmp.modified.Union(cmp.added)).Difference(cmp.removed);
  }
}

// upstream's prune: `merged` without the fields `last` (what the applier set before, in its
// version) held and the applier no longer sets, unless another manager owns them (in its
// version) or they are not the applier's to remove.
json Prune(const json& merged, const Entries& managers, const Entry& self, const Set& last,
           const std::string& last_version, VersionViews& views) {
  // At `version`: the fields of `merged` that `pruned` lost and `keep` holds are put back.
  auto add_back = [&views](const json& merged, const json& pruned, const std::string& version,
                           const Set& keep) -> std::optional<json> {
    const typed::Type* root = views.Root(version);
    std::optional<json> m = root ? views.To(merged, version) : std::nullopt;
    std::optional<json> p = m ? views.To(pruned, version) : std::nullopt;
    if (!p) return std::nullopt;
    auto full = [root](const json& v) {
      return typed::EnsureNamedFieldsAreMembers(typed::ToFieldSet(v, *root), *root);
    };
    const Set missing =
        full(*m).Difference(full(*p).Union(typed::EnsureNamedFieldsAreMembers(keep, *root)));
    return views.From(typed::RemoveItems(*m, missing, *root), version);
  };
  const std::string& own = self.api_version;
  const std::string& at = views.Root(last_version) ? last_version : own;
  const typed::Type* root = views.Root(at);
  std::optional<json> converted = views.To(merged, at);
  std::optional<json> pruned =
      converted
          ? views.From(typed::RemoveItems(*converted,
                                          typed::EnsureNamedFieldsAreMembers(last, *root), *root),
                       at)
          : std::nullopt;
  if (!pruned) return merged;
  // Fields others own, at each of their versions (this one first).
  std::map<std::string, Set> managed;
  for (const Entry& e : managers) {
    const std::string& version = views.Root(e.api_version) ? e.api_version : own;
    managed[version] = managed[version].Union(e.set);
  }
  if (auto it = managed.find(own); it != managed.end()) {
    if (auto back = add_back(merged, *pruned, own, it->second)) pruned = std::move(back);
    managed.erase(it);
  }
  for (const auto& [version, set] : managed) {
    if (auto back = add_back(merged, *pruned, version, set)) pruned = std::move(back);
  }
  // What `last` did not hold is not this apply's to remove (upstream's dangling items).
  std::optional<json> m = views.To(merged, at);
  std::optional<json> p = m ? views.To(*pruned, at) : std::nullopt;
  if (!p) return *pruned;
  auto full = [root](const json& v) {
    return typed::EnsureNamedFieldsAreMembers(typed::ToFieldSet(v, *root), *root);
  };
  const Set dangling =
      full(*m).Difference(full(*p)).Intersection(typed::EnsureNamedFieldsAreMembers(last, *root));
  std::optional<json> out = views.From(typed::RemoveItems(*m, dangling, *root), at);
  return out ? std::move(*out) : std::move(*pruned);
}

void DropEmpty(Entries& entries) {
  std::erase_if(entries, [](const Entry& e) { return e.set.Empty(); });
}

}  // namespace

void KindVersions::Add(std::string api_version, std::weak_ptr<const FieldManager> manager,
                       Conversion to_hub, Conversion from_hub) {
  versions_[std::move(api_version)] = {std::move(manager), std::move(to_hub), std::move(from_hub)};
}

std::optional<json> KindVersions::Convert(const json& object, const std::string& from,
                                          const std::string& to) const {
  auto f = versions_.find(from), t = versions_.find(to);
  if (f == versions_.end() || t == versions_.end()) return std::nullopt;
  json converted = t->second.from_hub(f->second.to_hub(object));
  if (!converted.is_object()) return std::nullopt;
  return converted;
}

std::shared_ptr<const FieldManager> KindVersions::Manager(const std::string& api_version) const {
  auto it = versions_.find(api_version);
  return it == versions_.end() ? nullptr : it->second.manager.lock();
}

std::string ManagerFromUserAgent(std::string_view user_agent) {
  std::string out;
  for (char c : user_agent.substr(0, user_agent.find('/'))) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) continue;
    if (out.size() + 1 > 128) break;
    out += c;
  }
  return out;
}

FieldManager::FieldManager(Options options) : options_(std::move(options)) {}
FieldManager::~FieldManager() = default;

const typed::Schema& FieldManager::schema() const {
  std::call_once(once_, [this] {
    static const json kEmpty = json::object();
    schema_ = std::make_unique<typed::Schema>(options_.components ? *options_.components : kEmpty,
                                              options_.schema_name, options_.fallback);
    new_object_ = options_.unstructured ? json::object() : typed::ZeroObject(schema_->Root());
    new_object_["apiVersion"] = options_.api_version;
    new_object_["kind"] = options_.kind;
  });
  return *schema_;
}

void FieldManager::LinkVersions(std::shared_ptr<const KindVersions> versions) const {
  std::lock_guard lock(versions_mu_);
  versions_ = std::move(versions);
}

std::shared_ptr<const KindVersions> FieldManager::versions() const {
  std::lock_guard lock(versions_mu_);
  return versions_;
}

const json& FieldManager::NewObject() const {
  schema();
  return new_object_;
}

std::optional<Status> CheckApplyVersion(const json& config, std::string_view expected) {
  auto it = config.find("apiVersion");
  const std::string version = it != config.end() && it->is_string() ? it->get<std::string>() : "";
  if (version == expected) return std::nullopt;
  return NewBadRequest("Incorrect version specified in apply patch. Specified patch version: " +
                       version + ", expected: " + std::string(expected));
}

void FieldManager::Update(const json* live, json& object, const WriteContext& write) const {
  const typed::Type& root = schema().Root();
  auto managers = Decode(object);
  if (!managers || managers->empty() || !write.subresource.empty()) {
    managers = live ? Decode(*live) : Entries{};
    if (!managers) {
      if (object.is_object() && object.contains("metadata")) {
        object["metadata"].erase("managedFields");
      }
      return;
    }
  }
  const json& before = live ? *live : NewObject();
  // Compared without managedFields: the object's are replaced below, the live object's
  // do not count.
  EraseManagedFields(object);
  const json* skip = nullptr;
  if (before.is_object() && before.contains("metadata") && before["metadata"].is_object()) {
    auto it = before["metadata"].find("managedFields");
    if (it != before["metadata"].end()) skip = &*it;
  }
  const Set reset = ResetSet(write.reset);
  VersionViews views(*this, options_.api_version);
  Changes changes(views, options_.api_version, before, object, reset,
                  CompareWithout(before, object, root, reset, skip));
  const typed::Comparison& cmp = changes.Own();
  const Set mine =
      cmp.modified.Union(cmp.added).Difference(cmp.removed).Difference(StrippedFields());
  TakeOwnership(*managers, changes, nullptr);
  DropEmpty(*managers);
  if (!mine.Empty()) {
    Entry self{write.manager, "Update", options_.api_version, write.subresource, Now(), mine};
    if (Entry* e = Find(*managers, self)) {
      e->set = mine.Union(e->set);
      e->time = self.time;
    } else {
      managers->push_back(std::move(self));
    }
  }
  CapUpdateManagers(*managers);
  SetManagedFields(object, *managers);
}

std::expected<json, Status> FieldManager::Apply(const json* live, const json& config,
                                                const WriteContext& write, bool force) const {
  const typed::Type& root = schema().Root();
  if (!config.is_object()) {
    return std::unexpected(NewBadRequest("the applied configuration is not an object"));
  }
  if (auto wrong = CheckApplyVersion(config, options_.api_version)) return std::unexpected(*wrong);
  if (config.contains("metadata") && config["metadata"].is_object() &&
      config["metadata"].contains("managedFields") &&
      !config["metadata"]["managedFields"].is_null()) {
    return std::unexpected(NewBadRequest("metadata.managedFields must be nil"));
  }
  std::vector<std::string> errors;
  Set applied = typed::ToFieldSet(config, root, &errors);
  if (!errors.empty()) {
    std::string text = errors.size() == 1 ? errors[0] : "errors:";
    if (errors.size() > 1) {
      for (const std::string& e : errors) text += "\n  " + e;
    }
    return std::unexpected(NewBadRequest("failed to create typed patch object (" +
                                         options_.api_version + ", Kind=" + options_.kind +
                                         "): " + text));
  }
  const json& fresh = NewObject();
  json current = live ? *live : fresh;
  auto decoded = Decode(current);
  if (!decoded) {
    return std::unexpected(NewInternalError("failed to decode managed fields: " + decoded.error()));
  }
  Entries managers = std::move(*decoded);
  EraseManagedFields(current);
  const Set reset = ResetSet(write.reset);
  // An object no one has managed yet: what it holds belongs to "before-first-apply".
  if (live && managers.empty()) {
    const typed::Comparison seed = CompareWithout(fresh, current, root, reset);
    Set owned = seed.modified.Union(seed.added).Difference(StrippedFields());
    if (!owned.Empty()) {
      managers.push_back({kBeforeFirstApply, "Update", options_.api_version, write.subresource,
                          Now(), std::move(owned)});
    }
  }
  json clean_config = config;
  EraseManagedFields(clean_config);
  // A new object is the configuration itself: the empty object's structs and nulls only
  // matter for what the write is seen to change.
  json merged = typed::Merge(
      live ? current : json{{"apiVersion", options_.api_version}, {"kind", options_.kind}},
      clean_config, root);

  Entry self{write.manager, "Apply", options_.api_version, write.subresource, "", {}};
  Entry* previous = Find(managers, self);
  const Set last = previous ? previous->set : Set();
  const std::string last_version = previous ? previous->api_version : options_.api_version;
  const std::string last_time = previous ? previous->time : "";
  const bool existed = previous != nullptr;
  self.set = applied.RecursiveDifference(reset).Difference(StrippedFields());
  std::erase_if(managers, [&](const Entry& e) { return e.SameManager(self); });
  managers.push_back(self);

  // Fields this manager applied last time and no longer does go, unless someone else owns them.
  VersionViews views(*this, options_.api_version);
  if (!last.Empty()) merged = Prune(merged, managers, self, last, last_version, views);

  Changes changes(views, options_.api_version, current, merged, reset,
                  CompareWithout(current, merged, root, reset));
  const typed::Comparison& cmp = changes.Own();
  std::vector<Conflict> conflicts;
  for (const Entry& e : managers) {
    if (e.SameManager(self)) continue;
    const typed::Comparison& theirs = changes.At(e.api_version);
    e.set.Intersection(theirs.modified.Union(theirs.added)).Iterate([&](const Path& p) {
      conflicts.push_back({PrintManager(e), p});
    });
  }
  if (!conflicts.empty() && !force) {
    // kubectl's move from client-side apply: fields its last-applied annotation sets may be
    // taken from the client-side managers.
    bool allowed = false;
    const json* annotation = write.manager == "kubectl" && live ? LastApplied(*live) : nullptr;
    if (annotation) {
      const json last_applied = json::parse(annotation->get<std::string>(), nullptr, false);
      if (last_applied.is_object()) {
        const Set ok = typed::ToFieldSet(last_applied, root);
        std::erase_if(conflicts, [&](const Conflict& c) { return ok.Has(c.path); });
        allowed = conflicts.empty();
      }
    }
    if (!allowed) return std::unexpected(ConflictStatus(std::move(conflicts)));
  }
  TakeOwnership(managers, changes, &self);
  DropEmpty(managers);
  Entry* mine = Find(managers, self);
  if (mine) mine->time = cmp.Same() && existed ? last_time : Now();

  json out = cmp.Same() ? current : merged;
  // kubectl keeps the client-side annotation in step, so that it can go back.
  if (write.manager == "kubectl" && live && LastApplied(*live)) {
    json annotation = clean_config;
    if (annotation.contains("metadata") && annotation["metadata"].contains("annotations")) {
      annotation["metadata"]["annotations"].erase(kLastApplied);
      if (annotation["metadata"]["annotations"].empty())
        annotation["metadata"].erase("annotations");
    }
    out["metadata"]["annotations"][kLastApplied] = annotation.dump();
  }
  CapUpdateManagers(managers);
  SetManagedFields(out, managers);
  return out;
}

}  // namespace apimachinery::managedfields
