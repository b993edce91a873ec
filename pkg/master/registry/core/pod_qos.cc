#include "pkg/master/registry/core/pod_qos.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/schema/go_values.h"
#include "pkg/master/registry/fields.h"

namespace master::resources {
namespace {

using nlohmann::json;

// Sums of the non-zero cpu and memory quantities of a resource list, per resource.
void AddQuantities(const json& list, std::map<std::string, long double>& sums) {
  if (!list.is_object()) return;
  for (const char* name : {"cpu", "memory"}) {
    auto it = list.find(name);
    if (it == list.end() || !it->is_string()) continue;
    auto value = apimachinery::schema::QuantityAmount(it->get<std::string>());
    if (value && *value != 0) sums[name] += *value;
  }
}

}  // namespace

std::string QOSClass(const json& pod_spec) {
  std::map<std::string, long double> requests;
  std::map<std::string, long double> limits;
  bool guaranteed = true;
  for (const char* list : {"containers", "initContainers"}) {
    for (const json& c : List(pod_spec, list)) {
      const json& resources = Sub(c, "resources");
      AddQuantities(Sub(resources, "requests"), requests);
      std::map<std::string, long double> own_limits;
      AddQuantities(Sub(resources, "limits"), own_limits);
      if (own_limits.size() != 2) guaranteed = false;
      for (const auto& [name, value] : own_limits) limits[name] += value;
    }
  }
  if (requests.empty() && limits.empty()) return "BestEffort";
  auto same = [](long double a, long double b) {
    return std::fabs(a - b) <= 1e-12L * std::max(std::fabs(a), std::fabs(b));
  };
  bool equal = requests.size() == limits.size();
  for (const auto& [name, value] : requests) {
    equal = equal && limits.contains(name) && same(value, limits[name]);
  }
  if (guaranteed && equal) return "Guaranteed";
  return "Burstable";
}

}  // namespace master::resources
