#include "pkg/master/bootstrap/rbac_reconcile.h"

#include <algorithm>

#include "pkg/genericserver/authz/rbac/policy_rule.h"

namespace master::bootstrap {
namespace {

using nlohmann::json;

constexpr char kAutoUpdate[] = "rbac.authorization.kubernetes.io/autoupdate";

std::vector<std::string> Strings(const json& object, const char* key) {
  std::vector<std::string> out;
  auto it = object.find(key);
  if (it == object.end() || !it->is_array()) return out;
  for (const json& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

json Labels(const json& object, const char* key) {
  const json& meta = object.value("metadata", json::object());
  auto it = meta.find(key);
  if (it == meta.end() || !it->is_object()) return json();
  return *it;
}

// Whether the object lacks one of the expected labels or annotations.
bool Lacks(const json& object, const json& expected, const char* key) {
  const json want = Labels(expected, key);
  if (!want.is_object()) return false;
  const json have = Labels(object, key);
  for (const auto& [k, v] : want.items()) {
    if (!have.is_object() || !have.contains(k)) return true;
  }
  return false;
}

// The expected labels or annotations the object lacks, added (the object's values win);
// true when something was added.
bool MergeInto(json& object, const json& expected, const char* key) {
  const json want = Labels(expected, key);
  if (!want.is_object() || want.empty()) return false;
  json& meta = object["metadata"];
  json have = Labels(object, key);
  if (!have.is_object()) have = json::object();
  bool added = false;
  for (const auto& [k, v] : want.items()) {
    if (!have.contains(k)) {
      have[k] = v;
      added = true;
    }
  }
  if (added) meta[key] = std::move(have);
  return added;
}

// The field, null when absent (no copy).
const json& Field(const json& object, const char* key) {
  static const json kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

bool IsProtected(const json& existing) {
  const json annotations = Labels(existing, "annotations");
  return annotations.is_object() && annotations.value(kAutoUpdate, "") == "false";
}

json Selectors(const json& role) {
  auto rule = role.find("aggregationRule");
  if (rule == role.end() || !rule->is_object()) return json();
  auto selectors = rule->find("clusterRoleSelectors");
  if (selectors == rule->end() || !selectors->is_array()) return json::array();
  return *selectors;
}

std::string JoinGo(const std::vector<std::string>& list) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) out += (i ? " " : "") + list[i];
  return out + "]";
}

// Subjects are equal when kind, apiGroup, name and namespace are.
bool SameSubject(const json& a, const json& b) {
  for (const char* key : {"kind", "apiGroup", "name", "namespace"}) {
    if (a.value(key, "") != b.value(key, "")) return false;
  }
  return true;
}

}  // namespace

std::vector<json> UncoveredRules(const json& owner_rules, const json& servant_rules) {
  // The same breakdown and coverage as the escalation check's, as upstream reconciles with
  // the validation package's Covers.
  auto rules = [](const json& list) {
    std::vector<authz::rbac::PolicyRule> out;
    if (list.is_array()) {
      for (const json& rule : list) out.push_back(authz::rbac::RuleFromJSON(rule));
    }
    return out;
  };
  std::vector<json> uncovered;
  if (!servant_rules.is_array()) return uncovered;
  for (const authz::rbac::PolicyRule& r :
       authz::rbac::Uncovered(rules(owner_rules), rules(servant_rules))) {
    json rule = json::object();
    if (!r.api_groups.empty()) rule["apiGroups"] = r.api_groups;
    if (!r.resources.empty()) rule["resources"] = r.resources;
    if (!r.resource_names.empty()) rule["resourceNames"] = r.resource_names;
    if (!r.non_resource_urls.empty()) rule["nonResourceURLs"] = r.non_resource_urls;
    rule["verbs"] = r.verbs;
    uncovered.push_back(std::move(rule));
  }
  return uncovered;
}

ReconcileResult ReconcileRole(const json& existing, const json& expected) {
  ReconcileResult result;
  if (existing.is_null()) {
    result.operation = ReconcileOperation::kCreate;
    result.object = expected;
    const json rules = expected.value("rules", json::array());
    if (rules.is_array()) result.missing.assign(rules.begin(), rules.end());
    return result;
  }
  result.is_protected = IsProtected(existing);
  // The usual case at a restart, without copying the object: nothing to do.
  if (Field(existing, "rules") == Field(expected, "rules") &&
      Selectors(existing) == Selectors(expected) && !Lacks(existing, expected, "annotations") &&
      !Lacks(existing, expected, "labels")) {
    return result;
  }
  result.object = existing;
  bool changed = MergeInto(result.object, expected, "annotations");
  changed = MergeInto(result.object, expected, "labels") || changed;

  // The same rules (the usual case at a restart) cover each other: no need to break them down.
  const json& have_rules = Field(existing, "rules");
  const json& want_rules = Field(expected, "rules");
  if (have_rules != want_rules) result.missing = UncoveredRules(have_rules, want_rules);
  if (!result.missing.empty()) {
    json& rules = result.object["rules"];
    if (!rules.is_array()) rules = json::array();
    for (const json& r : result.missing) rules.push_back(r);
    changed = true;
  }

  const json want = Selectors(expected);
  const json have = Selectors(existing);
  if (want.is_null() && !have.is_null()) {
    // Not an aggregated role in the policy: the aggregation goes.
    result.object.erase("aggregationRule");
    changed = true;
  } else if (!want.is_null()) {
    json selectors = have.is_array() ? have : json::array();
    bool added = false;
    for (const json& s : want) {
      if (std::find(selectors.begin(), selectors.end(), s) == selectors.end()) {
        selectors.push_back(s);
        added = true;
      }
    }
    if (added) {
      result.object["aggregationRule"]["clusterRoleSelectors"] = std::move(selectors);
      changed = true;
    }
  }
  if (changed) result.operation = ReconcileOperation::kUpdate;
  return result;
}

ReconcileResult ReconcileBinding(const json& existing, const json& expected) {
  ReconcileResult result;
  const json subjects = expected.value("subjects", json::array());
  if (existing.is_null()) {
    result.operation = ReconcileOperation::kCreate;
    result.object = expected;
    if (subjects.is_array()) result.missing.assign(subjects.begin(), subjects.end());
    return result;
  }
  result.is_protected = IsProtected(existing);
  const json want_ref = expected.value("roleRef", json::object());
  const json have_ref = existing.value("roleRef", json::object());
  for (const char* key : {"apiGroup", "kind", "name"}) {
    if (want_ref.value(key, "") != have_ref.value(key, "")) {
      result.operation = ReconcileOperation::kRecreate;
      result.object = expected;
      return result;
    }
  }
  if (Field(existing, "subjects") == Field(expected, "subjects") &&
      !Lacks(existing, expected, "annotations") && !Lacks(existing, expected, "labels")) {
    return result;  // the usual case at a restart, without copying the object
  }
  result.object = existing;
  bool changed = MergeInto(result.object, expected, "annotations");
  changed = MergeInto(result.object, expected, "labels") || changed;
  const json have = existing.value("subjects", json::array());
  if (subjects.is_array()) {
    for (const json& s : subjects) {
      auto same = [&s](const json& h) { return SameSubject(s, h); };
      const bool present = have.is_array() && std::any_of(have.begin(), have.end(), same);
      const bool listed = std::any_of(result.missing.begin(), result.missing.end(), same);
      if (!present && !listed) result.missing.push_back(s);
    }
  }
  if (!result.missing.empty()) {
    json& list = result.object["subjects"];
    if (!list.is_array()) list = json::array();
    for (const json& s : result.missing) list.push_back(s);
    changed = true;
  }
  if (changed) result.operation = ReconcileOperation::kUpdate;
  return result;
}

std::string FormatRules(const std::vector<json>& rules) {
  std::string out = "[";
  for (size_t i = 0; i < rules.size(); ++i) {
    const json& r = rules[i];
    out += (i ? " " : "");
    out += "{Verbs:" + JoinGo(Strings(r, "verbs")) +
           " APIGroups:" + JoinGo(Strings(r, "apiGroups")) +
           " Resources:" + JoinGo(Strings(r, "resources")) +
           " ResourceNames:" + JoinGo(Strings(r, "resourceNames")) +
           " NonResourceURLs:" + JoinGo(Strings(r, "nonResourceURLs")) + "}";
  }
  return out + "]";
}

std::string FormatSubjects(const std::vector<json>& subjects) {
  std::string out = "[";
  for (size_t i = 0; i < subjects.size(); ++i) {
    const json& s = subjects[i];
    out += (i ? " " : "");
    out += "{Kind:" + s.value("kind", "") + " APIGroup:" + s.value("apiGroup", "") +
           " Name:" + s.value("name", "") + " Namespace:" + s.value("namespace", "") + "}";
  }
  return out + "]";
}

}  // namespace master::bootstrap
