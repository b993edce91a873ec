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
// those it removed.
void TakeOwnership(Entries& entries, const typed::Comparison& cmp, const Entry* except) {
  const Set changed = cmp.modified.Union(cmp.added);
  for (Entry& e : entries) {
    if (except && e.SameManager(*except)) continue;
    e.set = e.set.Difference(changed).Difference(cmp.removed);
  }
}

void DropEmpty(Entries& entries) {
  std::erase_if(entries, [](const Entry& e) { return e.set.Empty(); });
}

}  // namespace

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
  const typed::Comparison cmp = CompareWithout(before, object, root, ResetSet(write.reset), skip);
  const Set mine =
      cmp.modified.Union(cmp.added).Difference(cmp.removed).Difference(StrippedFields());
  TakeOwnership(*managers, cmp, nullptr);
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
  const std::string last_time = previous ? previous->time : "";
  const bool existed = previous != nullptr;
  self.set = applied.RecursiveDifference(reset).Difference(StrippedFields());
  std::erase_if(managers, [&](const Entry& e) { return e.SameManager(self); });
  managers.push_back(self);

  // Fields this manager applied last time and no longer does go, unless someone else owns them.
  if (!last.Empty()) {
    auto full_set = [&](const json& v) {
      return typed::EnsureNamedFieldsAreMembers(typed::ToFieldSet(v, root), root);
    };
    const Set last_members = typed::EnsureNamedFieldsAreMembers(last, root);
    json pruned = typed::RemoveItems(merged, last_members, root);
    Set managed;
    for (const Entry& e : managers) managed = managed.Union(e.set);
    const Set merged_set = full_set(merged);
    pruned = typed::RemoveItems(merged,
                                merged_set.Difference(full_set(pruned).Union(
                                    typed::EnsureNamedFieldsAreMembers(managed, root))),
                                root);
    pruned = typed::RemoveItems(
        merged, merged_set.Difference(full_set(pruned)).Intersection(last_members), root);
    merged = std::move(pruned);
  }

  const typed::Comparison cmp = CompareWithout(current, merged, root, reset);
  std::vector<Conflict> conflicts;
  {
    const Set changed = cmp.modified.Union(cmp.added);
    for (const Entry& e : managers) {
      if (e.SameManager(self)) continue;
      e.set.Intersection(changed).Iterate([&](const Path& p) {
        conflicts.push_back({PrintManager(e), p});
      });
    }
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
  TakeOwnership(managers, cmp, &self);
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
