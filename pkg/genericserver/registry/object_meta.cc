#include "pkg/genericserver/registry/object_meta.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/apimachinery/validation/name_rule.h"
#include "pkg/genericserver/apimachinery/validation/names.h"

namespace registry {

namespace v = apimachinery::validation;
using nlohmann::json;

std::string MetaString(const json& object, std::string_view field) {
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return "";
  auto it = m->find(field);
  return it != m->end() && it->is_string() ? it->get<std::string>() : "";
}

void NormalizeMetadata(json& object) {
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return;
  for (auto it = m->begin(); it != m->end();) {
    const bool collection = it.key() == "labels" || it.key() == "annotations" ||
                            it.key() == "finalizers" || it.key() == "ownerReferences" ||
                            it.key() == "managedFields";
    if (it->is_null() || (collection && it->empty())) {
      it = m->erase(it);
    } else {
      ++it;
    }
  }
}

std::string NowTimestamp() { return FormatTime(std::chrono::system_clock::now()); }

std::string GenerateName(std::string_view prefix) {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  // As upstream: at most 58 characters of the prefix, so that a DNS label prefix stays one.
  static constexpr size_t kMaxPrefix = 58;
  thread_local std::mt19937 rng{std::random_device{}()};
  std::string name(prefix.substr(0, kMaxPrefix));
  for (int i = 0; i < 5; ++i) name += kAlphabet[rng() % (sizeof kAlphabet - 1)];
  return name;
}

namespace {

std::map<std::string, std::string> StringMap(const json& meta, const char* field,
                                             FieldErrors& errors) {
  std::map<std::string, std::string> out;
  if (!meta.contains(field) || meta[field].is_null()) return out;
  const json& m = meta[field];
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (!it.value().is_string()) {
      errors.push_back(v::FieldInvalid(std::string("metadata.") + field + "[" + it.key() + "]",
                                       it.value().dump(), "must be a string"));
      continue;
    }
    out[it.key()] = it.value().get<std::string>();
  }
  return out;
}

std::string Str(const json& meta, const char* field) {
  auto it = meta.find(field);
  return it != meta.end() && it->is_string() ? it->get<std::string>() : "";
}

void ValidateName(const std::string& field, const std::string& name, bool prefix, v::NameRule rule,
                  FieldErrors& errors) {
  for (const std::string& msg : v::ValidateName(rule, name, prefix)) {
    errors.push_back(v::FieldInvalid(field, name, msg));
  }
}

// metadata.managedFields as upstream's ValidateManagedFields checks the entries.
void ValidateManagedFields(const json& meta, FieldErrors& errors) {
  auto list = meta.find("managedFields");
  if (list == meta.end() || !list->is_array()) return;
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string field = "metadata.managedFields[" + std::to_string(i) + "]";
    const json& entry = (*list)[i];
    if (!entry.is_object()) continue;
    const std::string operation = Str(entry, "operation");
    if (operation != "Apply" && operation != "Update") {
      errors.push_back(
          v::FieldInvalid(field + ".operation", operation, "must be `Apply` or `Update`"));
    }
    const std::string type = Str(entry, "fieldsType");
    if (!type.empty() && type != "FieldsV1") {
      errors.push_back(v::FieldInvalid(field + ".fieldsType", type, "must be `FieldsV1`"));
    }
    const std::string manager = Str(entry, "manager");
    if (manager.size() > 128) {
      errors.push_back(v::FieldTooLong(field + ".manager", 128));
    } else if (std::any_of(manager.begin(), manager.end(), [](char c) {
                 return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
               })) {
      errors.push_back(
          v::FieldInvalid(field + ".manager", manager, "must only contain printable characters"));
    }
    if (Str(entry, "subresource").size() > 256) {
      errors.push_back(v::FieldTooLong(field + ".subresource", 256));
    }
  }
}

}  // namespace

FieldErrors ValidateObjectMeta(const json& object, bool namespaced, v::NameRule names) {
  FieldErrors errors;
  if (!object.contains("metadata") || !object["metadata"].is_object()) {
    errors.push_back(v::FieldRequired("metadata", ""));
    return errors;
  }
  const json& meta = object["metadata"];
  const std::string name = Str(meta, "name");
  const std::string generate = Str(meta, "generateName");
  if (!generate.empty()) ValidateName("metadata.generateName", generate, true, names, errors);
  if (name.empty()) {
    if (generate.empty()) {
      errors.push_back(v::FieldRequired("metadata.name", "name or generateName is required"));
    }
  } else {
    ValidateName("metadata.name", name, false, names, errors);
  }
  const std::string ns = Str(meta, "namespace");
  if (namespaced) {
    if (ns.empty()) {
      errors.push_back(v::FieldRequired("metadata.namespace", ""));
    } else {
      for (const std::string& msg : v::IsDNS1123Label(ns)) {
        errors.push_back(v::FieldInvalid("metadata.namespace", ns, msg));
      }
    }
  } else if (!ns.empty()) {
    errors.push_back(v::FieldForbidden("metadata.namespace", "not allowed on this type"));
  }
  if (meta.contains("generation") && meta["generation"].is_number_integer() &&
      meta["generation"].get<int64_t>() < 0) {
    errors.push_back(v::FieldInvalid("metadata.generation", meta["generation"].dump(),
                                     "must be greater than or equal to 0"));
  }
  for (auto& e : v::ValidateLabels(StringMap(meta, "labels", errors), "metadata.labels")) {
    errors.push_back(std::move(e));
  }
  for (auto& e :
       v::ValidateAnnotations(StringMap(meta, "annotations", errors), "metadata.annotations")) {
    errors.push_back(std::move(e));
  }
  if (meta.contains("finalizers") && meta["finalizers"].is_array()) {
    std::set<std::string> seen;
    const json& finalizers = meta["finalizers"];
    for (size_t i = 0; i < finalizers.size(); ++i) {
      const std::string field = "metadata.finalizers[" + std::to_string(i) + "]";
      if (!finalizers[i].is_string()) {
        errors.push_back(v::FieldInvalid(field, finalizers[i].dump(), "must be a string"));
        continue;
      }
      const std::string f = finalizers[i].get<std::string>();
      for (const std::string& msg : v::IsQualifiedName(f))
        errors.push_back(v::FieldInvalid(field, f, msg));
      if (!seen.insert(f).second) errors.push_back(v::FieldDuplicate(field, f));
    }
  }
  if (meta.contains("ownerReferences") && meta["ownerReferences"].is_array()) {
    const json& refs = meta["ownerReferences"];
    for (size_t i = 0; i < refs.size(); ++i) {
      const std::string field = "metadata.ownerReferences[" + std::to_string(i) + "]";
      const json& ref = refs[i];
      if (!ref.is_object()) {
        errors.push_back(v::FieldInvalid(field, ref.dump(), "must be an object"));
        continue;
      }
      if (Str(ref, "apiVersion").empty()) {
        errors.push_back(v::FieldInvalid(field + ".apiVersion", "", "version must not be empty"));
      }
      if (Str(ref, "kind").empty()) {
        errors.push_back(v::FieldInvalid(field + ".kind", "", "kind must not be empty"));
      }
      if (Str(ref, "name").empty()) {
        errors.push_back(v::FieldInvalid(field + ".name", "", "name must not be empty"));
      }
      if (Str(ref, "uid").empty()) {
        errors.push_back(v::FieldInvalid(field + ".uid", "", "uid must not be empty"));
      }
    }
  }
  ValidateManagedFields(meta, errors);
  return errors;
}

FieldErrors ValidateObjectMetaUpdate(const json& object, const json& old, bool namespaced,
                                     v::NameRule names) {
  FieldErrors errors = ValidateObjectMeta(object, namespaced, names);
  if (!errors.empty() && (!object.contains("metadata") || !object["metadata"].is_object())) {
    return errors;
  }
  const json& meta = object["metadata"];
  const json& prev = old["metadata"];
  // An object being deleted waits for its finalizers: none may join them.
  if (prev.contains("deletionTimestamp")) {
    std::set<std::string> before;
    for (const json& f : prev.value("finalizers", json::array())) {
      if (f.is_string()) before.insert(f.get<std::string>());
    }
    std::set<std::string> added;  // sorted, as upstream lists them
    for (const json& f : meta.value("finalizers", json::array())) {
      if (f.is_string() && !before.count(f.get<std::string>())) added.insert(f.get<std::string>());
    }
    if (!added.empty()) {
      errors.push_back(v::FieldForbidden(
          "metadata.finalizers",
          "no new finalizers can be added if the object is being deleted, found new finalizers " +
              v::GoStringSlice({added.begin(), added.end()})));
    }
  }
  for (const char* field : {"name", "namespace", "uid", "creationTimestamp"}) {
    const std::string now = meta.contains(field) ? meta[field].dump() : "";
    const std::string before = prev.contains(field) ? prev[field].dump() : "";
    if (now != before) {
      std::string shown =
          meta.contains(field) && meta[field].is_string() ? meta[field].get<std::string>() : now;
      errors.push_back(
          v::FieldInvalid(std::string("metadata.") + field, shown, "field is immutable"));
    }
  }
  return errors;
}

FieldErrors ValidateNamePathSegments(const json& object) {
  FieldErrors errors;
  const json& meta = object["metadata"];
  for (const auto& [field, prefix] : {std::pair{"generateName", true}, {"name", false}}) {
    const std::string value = Str(meta, field);
    if (value.empty()) continue;
    for (const std::string& msg : v::PathSegmentCheck(value, prefix)) {
      errors.push_back(v::FieldInvalid(std::string("metadata.") + field, value, msg));
    }
  }
  return errors;
}

bool SpecChanged(const json& a, const json& b) {
  auto strip = [](json o) {
    o.erase("metadata");
    o.erase("status");
    return o;
  };
  return strip(a) != strip(b);
}

}  // namespace registry
