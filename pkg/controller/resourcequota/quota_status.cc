#include "pkg/controller/resourcequota/quota_status.h"

#include <nlohmann/json.hpp>

#include "pkg/controller/object.h"

namespace controller::resourcequota {

using nlohmann::json;

namespace {

size_t Size(const json& list) { return list.is_object() ? list.size() : 0; }

}  // namespace

bool SemanticEqual(const json& a, const json& b) {
  if (Size(a) != Size(b)) return false;
  if (Size(a) == 0) return true;
  for (const auto& [name, value] : a.items()) {
    auto other = b.find(name);
    if (other == b.end()) return false;
    if (!value.is_string() || !other->is_string()) {
      if (value != *other) return false;
      continue;
    }
    auto x = util::Quantity::Parse(value.get<std::string>());
    auto y = util::Quantity::Parse(other->get<std::string>());
    if (x && y ? x->Cmp(*y) != 0 : value != *other) return false;
  }
  return true;
}

std::optional<json> UpdatedQuota(const json& quota, const ResourceList& new_usage) {
  const json& spec_hard = Field(Field(quota, "spec"), "hard");
  const json& status = Field(quota, "status");
  const json& old_hard = Field(status, "hard");
  const json& old_used = Field(status, "used");
  bool dirty = !SemanticEqual(spec_hard, old_hard) || old_hard.is_null() || old_used.is_null();

  // The old observations of the resources of spec.hard, overlaid with the new ones.
  json used = json::object();
  if (old_used.is_object() && spec_hard.is_object()) {
    for (const auto& [name, value] : old_used.items()) {
      if (spec_hard.contains(name)) used[name] = value;
    }
  }
  for (const auto& [name, q] : new_usage) {
    if (Size(spec_hard) > 0 && spec_hard.contains(name)) used[name] = q.String();
  }
  const ResourceList before = ParseResourceList(old_used);
  dirty = dirty || !Equals(ParseResourceList(used), before);
  if (!dirty) return std::nullopt;

  json updated = quota;
  json new_status = json::object();
  if (Size(spec_hard) > 0) new_status["hard"] = spec_hard;
  if (!used.empty()) new_status["used"] = std::move(used);
  updated["status"] = std::move(new_status);
  return updated;
}

}  // namespace controller::resourcequota
