#include "pkg/genericserver/authz/rbac/policy_rule.h"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/util/strings.h"

namespace authz::rbac {
namespace {

using nlohmann::json;

constexpr std::string_view kAll = "*";

bool HasAll(const std::vector<std::string>& set, const std::vector<std::string>& wanted) {
  return std::ranges::all_of(wanted, [&](const std::string& s) { return util::Contains(set, s); });
}

std::vector<std::string> Strings(const json& rule, const char* field) {
  std::vector<std::string> out;
  auto it = rule.find(field);
  if (it == rule.end() || !it->is_array()) return out;
  for (const json& s : *it) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
}

// A path rule: exact, "*", or a prefix ending in "*".
bool PathMatches(std::string_view rule, std::string_view path) {
  if (rule == kAll || rule == path) return true;
  if (!rule.ends_with('*')) return false;
  while (rule.ends_with('*')) rule.remove_suffix(1);
  return path.starts_with(rule);
}

bool ResourceMatches(const PolicyRule& rule, const std::string& combined,
                     std::string_view subresource) {
  for (const std::string& r : rule.resources) {
    if (r == kAll || r == combined) return true;
    if (!subresource.empty() && r.size() == subresource.size() + 2 && r.starts_with("*/") &&
        r.ends_with(subresource)) {
      return true;
    }
  }
  return false;
}

// Every resource in `wanted` is in `held`, as itself, through "*", or as "*/<sub>".
bool ResourcesCover(const std::vector<std::string>& held, const std::vector<std::string>& wanted) {
  if (util::Contains(held, kAll)) return true;
  for (const std::string& r : wanted) {
    if (util::Contains(held, r)) continue;
    const size_t slash = r.find('/');
    if (slash == std::string::npos || !util::Contains(held, "*" + r.substr(slash))) return false;
  }
  return true;
}

bool Covers(const PolicyRule& held, const PolicyRule& part) {
  if (!util::Contains(held.verbs, kAll) && !HasAll(held.verbs, part.verbs)) return false;
  if (!util::Contains(held.api_groups, kAll) && !HasAll(held.api_groups, part.api_groups))
    return false;
  if (!ResourcesCover(held.resources, part.resources)) return false;
  for (const std::string& path : part.non_resource_urls) {
    if (std::ranges::none_of(held.non_resource_urls, [&](const std::string& h) {
          return h == path || (h.ends_with('*') && PathMatches(h, path));
        })) {
      return false;
    }
  }
  if (!held.resource_names.empty())
    return HasAll(held.resource_names, part.resource_names) && !part.resource_names.empty();
  return true;
}

std::vector<PolicyRule> Breakdown(const PolicyRule& rule) {
  std::vector<PolicyRule> out;
  for (const std::string& group : rule.api_groups) {
    for (const std::string& resource : rule.resources) {
      for (const std::string& verb : rule.verbs) {
        if (rule.resource_names.empty()) {
          out.push_back({{verb}, {group}, {resource}, {}, {}});
        }
        for (const std::string& name : rule.resource_names) {
          out.push_back({{verb}, {group}, {resource}, {name}, {}});
        }
      }
    }
  }
  for (const std::string& path : rule.non_resource_urls) {
    for (const std::string& verb : rule.verbs) out.push_back({{verb}, {}, {}, {}, {path}});
  }
  return out;
}

}  // namespace

PolicyRule RuleFromJSON(const json& rule) {
  if (!rule.is_object()) return {};
  return {Strings(rule, "verbs"), Strings(rule, "apiGroups"), Strings(rule, "resources"),
          Strings(rule, "resourceNames"), Strings(rule, "nonResourceURLs")};
}

std::vector<PolicyRule> RulesOf(const json& role) {
  std::vector<PolicyRule> out;
  if (!role.is_object()) return out;
  auto it = role.find("rules");
  if (it == role.end() || !it->is_array()) return out;
  for (const json& rule : *it) out.push_back(RuleFromJSON(rule));
  return out;
}

bool RuleAllows(const endpoints::RequestInfo& r, const PolicyRule& rule) {
  if (!util::Contains(rule.verbs, kAll) && !util::Contains(rule.verbs, r.verb)) return false;
  if (!r.is_resource_request) {
    return std::ranges::any_of(rule.non_resource_urls,
                               [&](const std::string& u) { return PathMatches(u, r.path); });
  }
  if (!util::Contains(rule.api_groups, kAll) && !util::Contains(rule.api_groups, r.api_group))
    return false;
  const std::string combined =
      r.subresource.empty() ? r.resource : r.resource + "/" + r.subresource;
  if (!ResourceMatches(rule, combined, r.subresource)) return false;
  return rule.resource_names.empty() || util::Contains(rule.resource_names, r.name);
}

std::vector<PolicyRule> Uncovered(const std::vector<PolicyRule>& held,
                                  const std::vector<PolicyRule>& wanted) {
  std::vector<PolicyRule> missing;
  for (const PolicyRule& rule : wanted) {
    for (PolicyRule& part : Breakdown(rule)) {
      if (std::ranges::none_of(held, [&](const PolicyRule& h) { return Covers(h, part); })) {
        missing.push_back(std::move(part));
      }
    }
  }
  return missing;
}

std::vector<PolicyRule> CompactRules(const std::vector<PolicyRule>& rules) {
  std::vector<PolicyRule> out;
  std::map<std::pair<std::string, std::string>, PolicyRule> simple;
  for (const PolicyRule& rule : rules) {
    const bool is_simple = rule.resource_names.empty() && rule.non_resource_urls.empty() &&
                           rule.api_groups.size() == 1 && rule.resources.size() == 1;
    if (!is_simple) {
      out.push_back(rule);
      continue;
    }
    auto [it, added] = simple.try_emplace({rule.api_groups[0], rule.resources[0]}, rule);
    if (!added) {
      it->second.verbs.insert(it->second.verbs.end(), rule.verbs.begin(), rule.verbs.end());
    }
  }
  for (auto& [key, rule] : simple) out.push_back(std::move(rule));
  return out;
}

std::string CompactString(const PolicyRule& r) {
  std::vector<std::string> parts;
  auto add = [&](const char* name, const std::vector<std::string>& list) {
    if (!list.empty()) parts.push_back(std::string(name) + ":" + util::QuoteList(list));
  };
  add("APIGroups", r.api_groups);
  add("Resources", r.resources);
  add("NonResourceURLs", r.non_resource_urls);
  add("ResourceNames", r.resource_names);
  add("Verbs", r.verbs);
  return "{" + util::Join(parts, ", ") + "}";
}

}  // namespace authz::rbac
