#include "pkg/master/registry/core/pod_qos.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>

#include <nlohmann/json.hpp>

#include "pkg/master/registry/fields.h"

namespace master::resources {
namespace {

using nlohmann::json;

std::optional<long double> Suffix(std::string_view s) {
  static const std::map<std::string_view, long double> kSuffixes = {{"", 1},
                                                                    {"n", 1e-9L},
                                                                    {"u", 1e-6L},
                                                                    {"m", 1e-3L},
                                                                    {"k", 1e3L},
                                                                    {"M", 1e6L},
                                                                    {"G", 1e9L},
                                                                    {"T", 1e12L},
                                                                    {"P", 1e15L},
                                                                    {"E", 1e18L},
                                                                    {"Ki", 1024.0L},
                                                                    {"Mi", 1048576.0L},
                                                                    {"Gi", 1073741824.0L},
                                                                    {"Ti", 1099511627776.0L},
                                                                    {"Pi", 1125899906842624.0L},
                                                                    {"Ei", 1152921504606846976.0L}};
  if (auto it = kSuffixes.find(s); it != kSuffixes.end()) return it->second;
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    int exponent = 0;
    std::string_view digits = s.substr(1);
    if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
    if (ec == std::errc() && p == digits.data() + digits.size()) return std::pow(10.0L, exponent);
  }
  return std::nullopt;
}

// Sums of the non-zero cpu and memory quantities of a resource list, per resource.
void AddQuantities(const json& list, std::map<std::string, long double>& sums) {
  if (!list.is_object()) return;
  for (const char* name : {"cpu", "memory"}) {
    auto it = list.find(name);
    if (it == list.end() || !it->is_string()) continue;
    auto value = QuantityValue(it->get<std::string>());
    if (value && *value != 0) sums[name] += *value;
  }
}

}  // namespace

std::optional<long double> QuantityValue(std::string_view text) {
  size_t end = 0;
  if (end < text.size() && (text[end] == '+' || text[end] == '-')) ++end;
  while (end < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) {
    ++end;
  }
  std::string number(text.substr(0, end));
  if (number.empty() || number == "+" || number == "-") return std::nullopt;
  auto scale = Suffix(text.substr(end));
  if (!scale) return std::nullopt;
  char* stop = nullptr;
  const long double mantissa = std::strtold(number.c_str(), &stop);
  if (stop != number.c_str() + number.size()) return std::nullopt;
  return mantissa * *scale;
}

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
