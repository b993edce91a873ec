#include "pkg/genericserver/authn/service_account_objects.h"

#include <mutex>

#include <nlohmann/json.hpp>

#include "pkg/util/base64.h"

namespace authn {
namespace {

using nlohmann::json;

std::string Meta(const json& object, const char* field) {
  const json& meta = object.is_object() ? object.value("metadata", json::object()) : json();
  if (!meta.is_object()) return "";
  auto it = meta.find(field);
  return it != meta.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

void ServiceAccountObjects::UpsertLocked(Kind kind, const json& object) {
  Entry e;
  e.uid = Meta(object, "uid");
  const json& meta = object.value("metadata", json::object());
  e.deleting = meta.is_object() && meta.contains("deletionTimestamp") &&
               !meta["deletionTimestamp"].is_null();
  if (kind == Kind::kSecret) {
    const json& data = object.value("data", json::object());
    if (data.is_object() && data.contains("token") && data["token"].is_string()) {
      e.token = util::Base64Decode(data["token"].get<std::string>()).value_or("");
    }
    const json& annotations =
        meta.is_object() ? meta.value("annotations", json::object()) : json::object();
    if (annotations.is_object()) {
      e.service_account = annotations.value("kubernetes.io/service-account.name", "");
    }
  }
  Of(kind)[Meta(object, "namespace")][Meta(object, "name")] = std::move(e);
}

void ServiceAccountObjects::Replace(Kind kind, const std::vector<json>& objects) {
  std::unique_lock lock(mu_);
  Of(kind).clear();
  for (const json& o : objects) UpsertLocked(kind, o);
}

void ServiceAccountObjects::Upsert(Kind kind, const json& object) {
  std::unique_lock lock(mu_);
  UpsertLocked(kind, object);
}

void ServiceAccountObjects::Remove(Kind kind, const json& object) {
  std::unique_lock lock(mu_);
  auto& by_ns = Of(kind);
  auto it = by_ns.find(Meta(object, "namespace"));
  if (it == by_ns.end()) return;
  it->second.erase(Meta(object, "name"));
  if (it->second.empty()) by_ns.erase(it);
}

void ServiceAccountObjects::MarkSynced(Kind kind) {
  std::unique_lock lock(mu_);
  synced_.insert(kind);
}

bool ServiceAccountObjects::Synced() const {
  std::shared_lock lock(mu_);
  return synced_.size() == kKinds;
}

std::optional<ServiceAccountObjects::Entry> ServiceAccountObjects::Find(
    Kind kind, std::string_view ns, std::string_view name) const {
  std::shared_lock lock(mu_);
  const Objects& by_ns = objects_[static_cast<int>(kind)];
  auto in = by_ns.find(ns);
  if (in == by_ns.end()) return std::nullopt;
  auto it = in->second.find(name);
  if (it == in->second.end()) return std::nullopt;
  return it->second;
}

}  // namespace authn
