#include "pkg/genericserver/audit/policy.h"

#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/yaml/yaml_json.h"
#include "pkg/util/file.h"
#include "pkg/util/strings.h"

namespace audit {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 4> kLevels = {"None", "Metadata", "Request",
                                                     "RequestResponse"};
constexpr std::array<std::string_view, 4> kStages = {"RequestReceived", "ResponseStarted",
                                                     "ResponseComplete", "Panic"};

// Reads the policy's JSON, noting each problem under its field path.
class Reader {
 public:
  std::vector<std::string> errors;

  std::vector<std::string> Strings(const json& parent, const char* key, const std::string& path) {
    std::vector<std::string> out;
    auto it = parent.find(key);
    if (it == parent.end() || it->is_null()) return out;
    if (!it->is_array()) {
      errors.push_back(path + "." + key + ": Invalid value: must be a list of strings");
      return out;
    }
    for (const json& v : *it) {
      if (!v.is_string()) {
        errors.push_back(path + "." + key + ": Invalid value: must be a list of strings");
        return {};
      }
      out.push_back(v.get<std::string>());
    }
    return out;
  }

  std::vector<Stage> Stages(const json& parent, const char* key, const std::string& path) {
    std::vector<Stage> out;
    for (const std::string& name : Strings(parent, key, path)) {
      if (auto stage = ParseStage(name)) {
        out.push_back(*stage);
      } else {
        errors.push_back(path + "." + key + ": Unsupported value: " + util::Quote(name) +
                         ": supported values: \"RequestReceived\", \"ResponseStarted\", "
                         "\"ResponseComplete\", \"Panic\"");
      }
    }
    return out;
  }

  PolicyRule Rule(const json& r, const std::string& path) {
    PolicyRule rule;
    if (!r.is_object()) {
      errors.push_back(path + ": Invalid value: must be an object");
      return rule;
    }
    const std::string level = r.contains("level") && r["level"].is_string() ? r["level"] : "";
    if (level.empty()) {
      errors.push_back(path + ".level: Required value");
    } else if (auto l = ParseLevel(level)) {
      rule.level = *l;
    } else {
      errors.push_back(path + ".level: Unsupported value: " + util::Quote(level) +
                       ": supported values: \"None\", \"Metadata\", \"Request\", "
                       "\"RequestResponse\"");
    }
    rule.users = Strings(r, "users", path);
    rule.user_groups = Strings(r, "userGroups", path);
    rule.verbs = Strings(r, "verbs", path);
    rule.namespaces = Strings(r, "namespaces", path);
    rule.non_resource_urls = Strings(r, "nonResourceURLs", path);
    rule.omit_stages = Stages(r, "omitStages", path);
    if (auto it = r.find("omitManagedFields"); it != r.end() && !it->is_null()) {
      if (it->is_boolean()) {
        rule.omit_managed_fields = it->get<bool>();
      } else {
        errors.push_back(path + ".omitManagedFields: Invalid value: must be a boolean");
      }
    }
    if (auto it = r.find("resources"); it != r.end() && it->is_array()) {
      for (size_t i = 0; i < it->size(); ++i) {
        const std::string at = path + ".resources[" + std::to_string(i) + "]";
        const json& gr = (*it)[i];
        GroupResources g;
        if (gr.is_object()) {
          if (auto group = gr.find("group"); group != gr.end() && group->is_string())
            g.group = *group;
          g.resources = Strings(gr, "resources", at);
          g.resource_names = Strings(gr, "resourceNames", at);
        }
        if (!g.resource_names.empty() && g.resources.empty()) {
          errors.push_back(at +
                           ".resourceNames: Invalid value: " + util::QuoteList(g.resource_names) +
                           ": using resource names requires at least one resource");
        }
        rule.resources.push_back(std::move(g));
      }
    }
    for (size_t i = 0; i < rule.non_resource_urls.size(); ++i) {
      const std::string& url = rule.non_resource_urls[i];
      const std::string at = path + ".nonResourceURLs[" + std::to_string(i) + "]";
      if (url == "*") continue;
      if (!url.starts_with('/')) {
        errors.push_back(at + ": Invalid value: " + util::Quote(url) +
                         ": non-resource URL rules must begin with a '/' character");
      }
      if (auto star = url.find('*'); star != std::string::npos && star + 1 != url.size()) {
        errors.push_back(at + ": Invalid value: " + util::Quote(url) +
                         ": non-resource URL wildcards '*' must be the final character of the "
                         "rule");
      }
    }
    if (!rule.non_resource_urls.empty() && (!rule.resources.empty() || !rule.namespaces.empty())) {
      errors.push_back(path +
                       ": Invalid value: rules cannot apply to both regular resources and "
                       "non-resource URLs");
    }
    return rule;
  }
};

bool PathMatches(std::string_view path, std::string_view spec) {
  if (spec == "*" || spec == path) return true;
  return spec.ends_with('*') && path.starts_with(spec.substr(0, spec.size() - 1));
}

bool MatchesResource(const PolicyRule& r, const endpoints::RequestInfo& info) {
  if (!info.is_resource_request) return false;
  if (!r.namespaces.empty() && !util::Contains(r.namespaces, info.namespace_)) return false;
  if (r.resources.empty()) return true;
  const std::string combined =
      info.subresource.empty() ? info.resource : info.resource + "/" + info.subresource;
  for (const GroupResources& gr : r.resources) {
    if (gr.group != info.api_group) continue;
    if (gr.resources.empty()) return true;
    if (!gr.resource_names.empty() && !util::Contains(gr.resource_names, info.name)) continue;
    for (const std::string& res : gr.resources) {
      if (res == combined || res == "*") return true;
      if (!info.subresource.empty() && res.starts_with("*/") &&
          std::string_view(res).substr(2) == info.subresource) {
        return true;
      }
      if (res.ends_with("/*") && std::string_view(res).substr(0, res.size() - 2) == info.resource) {
        return true;
      }
    }
  }
  return false;
}

bool Matches(const PolicyRule& r, const authn::UserInfo* user, const endpoints::RequestInfo& info) {
  if (!r.users.empty() && (!user || !util::Contains(r.users, user->name))) return false;
  if (!r.user_groups.empty()) {
    if (!user) return false;
    if (std::ranges::none_of(
            user->groups, [&](const std::string& g) { return util::Contains(r.user_groups, g); })) {
      return false;
    }
  }
  if (!r.verbs.empty() && !util::Contains(r.verbs, info.verb)) return false;
  if (!r.namespaces.empty() || !r.resources.empty()) return MatchesResource(r, info);
  if (!r.non_resource_urls.empty()) {
    if (info.is_resource_request) return false;
    return std::ranges::any_of(
        r.non_resource_urls, [&](const std::string& spec) { return PathMatches(info.path, spec); });
  }
  return true;
}

}  // namespace

std::string_view LevelName(Level level) { return kLevels[static_cast<size_t>(level)]; }
std::string_view StageName(Stage stage) { return kStages[static_cast<size_t>(stage)]; }

std::optional<Level> ParseLevel(std::string_view name) {
  for (size_t i = 0; i < kLevels.size(); ++i) {
    if (kLevels[i] == name) return static_cast<Level>(i);
  }
  return std::nullopt;
}

std::optional<Stage> ParseStage(std::string_view name) {
  for (size_t i = 0; i < kStages.size(); ++i) {
    if (kStages[i] == name) return static_cast<Stage>(i);
  }
  return std::nullopt;
}

bool RequestAuditConfig::Omits(Stage stage) const {
  return std::ranges::find(omit_stages, stage) != omit_stages.end();
}

std::expected<Policy, std::string> ParsePolicy(std::string_view text) {
  auto parsed = apimachinery::yaml::YAMLToJSON(text);
  if (!parsed) return std::unexpected("failed decoding: " + parsed.error());
  const json& doc = *parsed;
  if (!doc.is_object()) return std::unexpected("failed decoding: not an object");
  const std::string api_version = doc.value("apiVersion", "");
  const std::string kind = doc.value("kind", "");
  if (kind != "Policy" || api_version != "audit.k8s.io/v1") {
    return std::unexpected("failed decoding: no kind " + util::Quote(kind) +
                           " is registered for version " + util::Quote(api_version) +
                           " (want kind \"Policy\" of \"audit.k8s.io/v1\")");
  }
  Reader reader;
  Policy policy;
  policy.omit_stages = reader.Stages(doc, "omitStages", "omitStages");
  if (auto it = doc.find("omitManagedFields"); it != doc.end() && it->is_boolean()) {
    policy.omit_managed_fields = it->get<bool>();
  }
  if (auto it = doc.find("rules"); it != doc.end() && it->is_array()) {
    for (size_t i = 0; i < it->size(); ++i) {
      policy.rules.push_back(reader.Rule((*it)[i], "rules[" + std::to_string(i) + "]"));
    }
  }
  if (!reader.errors.empty()) {
    return std::unexpected("[" + util::Join(reader.errors, ", ") + "]");
  }
  if (policy.rules.empty()) return std::unexpected("loaded illegal policy with 0 rules");
  return policy;
}

std::expected<Policy, std::string> LoadPolicyFile(const std::string& path) {
  auto text = util::ReadFile(path);
  if (!text)
    return std::unexpected("failed to read audit policy file " + path + ": " + text.error());
  auto policy = ParsePolicy(*text);
  if (!policy)
    return std::unexpected("failed to load audit policy from " + path + ": " + policy.error());
  return policy;
}

RequestAuditConfig Evaluate(const Policy& policy, const authn::UserInfo* user,
                            const endpoints::RequestInfo& info) {
  for (const PolicyRule& rule : policy.rules) {
    if (!Matches(rule, user, info)) continue;
    RequestAuditConfig config;
    config.level = rule.level;
    config.omit_stages = policy.omit_stages;
    for (Stage s : rule.omit_stages) {
      if (!config.Omits(s)) config.omit_stages.push_back(s);
    }
    config.omit_managed_fields = rule.omit_managed_fields.value_or(policy.omit_managed_fields);
    return config;
  }
  return {};
}

}  // namespace audit
