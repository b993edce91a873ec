#include "pkg/genericserver/audit/context.h"

#include <nlohmann/json.hpp>

namespace audit {
namespace {

using nlohmann::json;

void DropManagedFields(json& object) {
  if (!object.is_object()) return;
  if (auto meta = object.find("metadata"); meta != object.end() && meta->is_object()) {
    meta->erase("managedFields");
  }
  if (auto items = object.find("items"); items != object.end() && items->is_array()) {
    for (json& item : *items) DropManagedFields(item);
  }
  if (auto rows = object.find("rows"); rows != object.end() && rows->is_array()) {
    for (json& row : *rows) {
      if (row.is_object() && row.contains("object")) DropManagedFields(row["object"]);
    }
  }
}

std::string Field(const json& meta, const char* key) {
  auto it = meta.find(key);
  return it != meta.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

void Context::AddAnnotation(const std::string& key, std::string value) {
  if (config_.level < Level::kMetadata) return;
  event_.annotations.try_emplace(key, std::move(value));
}

void Context::LogImpersonatedUser(const authn::UserInfo& user) { event_.impersonated_user = user; }

std::string Context::Recorded(const json& object) const {
  if (!config_.omit_managed_fields) return object.dump();
  json copy = object;
  DropManagedFields(copy);
  return copy.dump();
}

void Context::LogRequestObject(const json& object) {
  if (config_.level < Level::kMetadata || !object.is_object()) return;
  ObjectReference& ref = event_.object_ref ? *event_.object_ref : event_.object_ref.emplace();
  if (auto meta = object.find("metadata"); meta != object.end() && meta->is_object()) {
    if (ref.namespace_.empty()) ref.namespace_ = Field(*meta, "namespace");
    if (ref.name.empty()) ref.name = Field(*meta, "name");
    if (ref.uid.empty()) ref.uid = Field(*meta, "uid");
    if (ref.resource_version.empty()) ref.resource_version = Field(*meta, "resourceVersion");
  }
  if (config_.level >= Level::kRequest) event_.request_object = Recorded(object);
}

void Context::LogRequestPatch(const json& patch) {
  if (config_.level >= Level::kRequest) event_.request_object = patch.dump();
}

}  // namespace audit
