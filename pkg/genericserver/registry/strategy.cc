#include "pkg/genericserver/registry/strategy.h"

#include <set>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"

namespace registry {

std::optional<std::string> Strategy::Decode(nlohmann::json&) const { return std::nullopt; }

void Strategy::Default(nlohmann::json&) const {}

void Strategy::RecordRequester(nlohmann::json&, const authn::UserInfo&) const {}

void Strategy::PrepareForCreate(nlohmann::json& object) const {
  if (HasStatusSubresource()) object.erase("status");
}

void Strategy::PrepareForUpdate(nlohmann::json& object, const nlohmann::json& old) const {
  // With a status subresource, the main resource cannot change status.
  if (!HasStatusSubresource()) return;
  if (old.contains("status")) {
    object["status"] = old["status"];
  } else {
    object.erase("status");
  }
}

FieldErrors Strategy::Validate(const nlohmann::json&) const { return {}; }

FieldErrors Strategy::ValidateUpdate(const nlohmann::json& object, const nlohmann::json&) const {
  return Validate(object);
}

bool Strategy::GenerationChanged(const nlohmann::json& object, const nlohmann::json& old) const {
  return SpecChanged(object, old);
}

void Strategy::Canonicalize(nlohmann::json&) const {}

bool Strategy::PrepareForDelete(nlohmann::json&) const { return false; }

std::optional<apimachinery::Status> Strategy::RefuseDelete(const nlohmann::json&) const {
  return std::nullopt;
}

bool Strategy::Finalized(const nlohmann::json& object) const {
  auto m = object.find("metadata");
  if (m == object.end()) return true;
  auto f = m->find("finalizers");
  return f == m->end() || !f->is_array() || f->empty();
}

void StatusStrategy::PrepareForUpdate(nlohmann::json& object, const nlohmann::json& old) const {
  // Everything outside metadata and status is the stored object's.
  nlohmann::json result = old;
  for (const char* part : {"metadata", "status"}) {
    if (object.contains(part)) {
      result[part] = std::move(object[part]);
    } else {
      result.erase(part);
    }
  }
  nlohmann::json& meta = result["metadata"];
  const nlohmann::json& stored = old["metadata"];
  for (const std::string& field : options_.stored_metadata) {
    if (stored.contains(field)) {
      meta[field] = stored[field];
    } else {
      meta.erase(field);
    }
  }
  object = std::move(result);
}

std::vector<std::vector<std::string>> Strategy::ResetFields(const nlohmann::json&,
                                                            const nlohmann::json*) const {
  if (HasStatusSubresource()) return {{"status"}};
  return {};
}

std::vector<std::vector<std::string>> StatusStrategy::ResetFields(const nlohmann::json& object,
                                                                  const nlohmann::json* old) const {
  std::set<std::string> top;
  for (const nlohmann::json* o : {&object, old}) {
    if (!o || !o->is_object()) continue;
    for (const auto& [key, value] : o->items()) {
      if (key != "apiVersion" && key != "kind" && key != "metadata" && key != "status") {
        top.insert(key);
      }
    }
  }
  top.insert("spec");
  std::vector<std::vector<std::string>> out;
  for (const std::string& key : top) out.push_back({key});
  for (const std::string& field : options_.stored_metadata) out.push_back({"metadata", field});
  return out;
}

}  // namespace registry
