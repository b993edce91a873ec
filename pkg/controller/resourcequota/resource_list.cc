#include "pkg/controller/resourcequota/resource_list.h"

#include <nlohmann/json.hpp>

namespace controller::resourcequota {

using nlohmann::json;

ResourceList ParseResourceList(const json& object) {
  ResourceList out;
  if (!object.is_object()) return out;
  for (const auto& [name, value] : object.items()) {
    if (!value.is_string()) continue;
    if (auto q = util::Quantity::Parse(value.get<std::string>())) out.emplace(name, *q);
  }
  return out;
}

ResourceList Add(const ResourceList& a, const ResourceList& b) {
  ResourceList out = a;
  for (const auto& [name, q] : b) {
    auto it = out.find(name);
    if (it == out.end()) {
      out.emplace(name, q);
    } else {
      it->second.Add(q);
    }
  }
  return out;
}

ResourceList Mask(const ResourceList& list, const std::set<std::string>& names) {
  ResourceList out;
  for (const auto& [name, q] : list) {
    if (names.contains(name)) out.emplace(name, q);
  }
  return out;
}

bool Equals(const ResourceList& a, const ResourceList& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, q] : a) {
    auto it = b.find(name);
    if (it == b.end() || it->second.Cmp(q) != 0) return false;
  }
  return true;
}

}  // namespace controller::resourcequota
