#include "pkg/genericserver/registry/strategy.h"

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
  // Everything but status (and metadata the Store manages) comes from the stored object.
  nlohmann::json status = object.contains("status") ? object["status"] : nlohmann::json();
  // The resourceVersion given is kept: it is the client's precondition.
  nlohmann::json resource_version = object["metadata"].value("resourceVersion", nlohmann::json());
  object = old;
  if (status.is_null()) {
    object.erase("status");
  } else {
    object["status"] = std::move(status);
  }
  if (!resource_version.is_null()) object["metadata"]["resourceVersion"] = resource_version;
}

}  // namespace registry
