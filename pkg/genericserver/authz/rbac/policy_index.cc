#include "pkg/genericserver/authz/rbac/policy_index.h"

#include <algorithm>
#include <mutex>

#include <nlohmann/json.hpp>

#include "pkg/util/strings.h"

namespace authz::rbac {
namespace {

using nlohmann::json;

std::string Field(const json& object, const char* a, const char* b) {
  if (!object.is_object()) return "";
  auto it = object.find(a);
  if (it == object.end() || !it->is_object()) return "";
  auto v = it->find(b);
  return v != it->end() && v->is_string() ? v->get<std::string>() : "";
}

std::string ServiceAccountUser(std::string_view ns, std::string_view name) {
  return "system:serviceaccount:" + std::string(ns) + ":" + std::string(name);
}

// The user name a subject stands for ("" for groups and what names no one).
std::string SubjectUser(const Subject& s, std::string_view binding_ns) {
  if (s.kind == "User") return s.name;
  if (s.kind == "ServiceAccount") {
    const std::string_view ns = s.ns.empty() ? binding_ns : std::string_view(s.ns);
    if (!ns.empty()) return ServiceAccountUser(ns, s.name);
  }
  return "";
}

bool Applies(const Subject& s, const authn::UserInfo& user, std::string_view binding_ns) {
  if (s.kind == "Group") return user.InGroup(s.name);
  const std::string name = SubjectUser(s, binding_ns);
  return !name.empty() && name == user.name;
}

std::shared_ptr<const Binding> BindingFrom(const json& object) {
  auto b = std::make_shared<Binding>();
  b->ns = Field(object, "metadata", "namespace");
  b->name = Field(object, "metadata", "name");
  b->role_kind = Field(object, "roleRef", "kind");
  b->role_name = Field(object, "roleRef", "name");
  if (auto it = object.find("subjects"); it != object.end() && it->is_array()) {
    for (const json& s : *it) {
      if (!s.is_object()) continue;
      b->subjects.push_back({s.value("kind", ""), s.value("name", ""), s.value("namespace", "")});
    }
  }
  return b;
}

std::string Describe(const Subject& s, std::string_view binding_ns) {
  if (s.kind == "ServiceAccount") {
    return s.kind + " " +
           util::Quote(s.name + "/" + (s.ns.empty() ? std::string(binding_ns) : s.ns));
  }
  return s.kind + " " + util::Quote(s.name);
}

}  // namespace

std::string RuleSource::Describe() const {
  const std::string name = binding.ns.empty() ? binding.name : binding.name + "/" + binding.ns;
  return std::string(binding.ns.empty() ? "ClusterRoleBinding " : "RoleBinding ") +
         util::Quote(name) + " of " + binding.role_kind + " " + util::Quote(binding.role_name) +
         " to " + rbac::Describe(subject, binding.ns);
}

std::string AggregateErrors(const std::vector<std::string>& errors) {
  std::vector<std::string> distinct;
  for (const std::string& e : errors) {
    if (std::ranges::find(distinct, e) == distinct.end()) distinct.push_back(e);
  }
  if (distinct.empty()) return "";
  if (distinct.size() == 1) return distinct[0];
  return "[" + util::Join(distinct, ", ") + "]";
}

void PolicyIndex::Scope::Add(std::shared_ptr<const Binding> b) {
  Erase(b->name);
  for (const Subject& s : b->subjects) {
    if (s.kind == "Group") {
      by_group[s.name].insert(b->name);
    } else if (std::string user = SubjectUser(s, b->ns); !user.empty()) {
      by_user[user].insert(b->name);
    }
  }
  by_name[b->name] = std::move(b);
}

void PolicyIndex::Scope::Erase(const std::string& name) {
  auto it = by_name.find(name);
  if (it == by_name.end()) return;
  auto drop = [&](auto& index, const std::string& key) {
    auto found = index.find(key);
    if (found == index.end()) return;
    found->second.erase(name);
    if (found->second.empty()) index.erase(found);
  };
  for (const Subject& s : it->second->subjects) {
    if (s.kind == "Group") {
      drop(by_group, s.name);
    } else if (std::string user = SubjectUser(s, it->second->ns); !user.empty()) {
      drop(by_user, user);
    }
  }
  by_name.erase(it);
}

std::vector<const Binding*> PolicyIndex::Scope::For(const authn::UserInfo& user) const {
  std::set<std::string_view> names;
  auto collect = [&](const auto& index, const std::string& key) {
    if (auto it = index.find(key); it != index.end())
      names.insert(it->second.begin(), it->second.end());
  };
  collect(by_user, user.name);
  for (const std::string& g : user.groups) collect(by_group, g);
  std::vector<const Binding*> out;
  out.reserve(names.size());
  for (std::string_view n : names) out.push_back(by_name.find(n)->second.get());
  return out;
}

void PolicyIndex::Replace(PolicyKind kind, const std::vector<json>& objects) {
  std::unique_lock lock(mu_);
  switch (kind) {
    case PolicyKind::kRole:
      roles_.clear();
      break;
    case PolicyKind::kClusterRole:
      cluster_roles_.clear();
      break;
    case PolicyKind::kRoleBinding:
      role_bindings_.clear();
      break;
    case PolicyKind::kClusterRoleBinding:
      cluster_bindings_ = Scope();
      break;
  }
  for (const json& o : objects) UpsertLocked(kind, o);
}

void PolicyIndex::Upsert(PolicyKind kind, const json& object) {
  std::unique_lock lock(mu_);
  UpsertLocked(kind, object);
}

void PolicyIndex::Remove(PolicyKind kind, const json& object) {
  std::unique_lock lock(mu_);
  RemoveLocked(kind, Field(object, "metadata", "namespace"), Field(object, "metadata", "name"));
}

void PolicyIndex::UpsertLocked(PolicyKind kind, const json& object) {
  const std::string ns = Field(object, "metadata", "namespace");
  const std::string name = Field(object, "metadata", "name");
  switch (kind) {
    case PolicyKind::kRole:
      roles_[ns][name] = std::make_shared<const std::vector<PolicyRule>>(RulesOf(object));
      break;
    case PolicyKind::kClusterRole:
      cluster_roles_[name] = std::make_shared<const std::vector<PolicyRule>>(RulesOf(object));
      break;
    case PolicyKind::kRoleBinding:
      role_bindings_[ns].Add(BindingFrom(object));
      break;
    case PolicyKind::kClusterRoleBinding:
      cluster_bindings_.Add(BindingFrom(object));
      break;
  }
}

void PolicyIndex::RemoveLocked(PolicyKind kind, const std::string& ns, const std::string& name) {
  switch (kind) {
    case PolicyKind::kRole:
      if (auto it = roles_.find(ns); it != roles_.end()) {
        it->second.erase(name);
        if (it->second.empty()) roles_.erase(it);
      }
      break;
    case PolicyKind::kClusterRole:
      cluster_roles_.erase(name);
      break;
    case PolicyKind::kRoleBinding:
      if (auto it = role_bindings_.find(ns); it != role_bindings_.end()) {
        it->second.Erase(name);
        if (it->second.by_name.empty()) role_bindings_.erase(it);
      }
      break;
    case PolicyKind::kClusterRoleBinding:
      cluster_bindings_.Erase(name);
      break;
  }
}

void PolicyIndex::MarkSynced(PolicyKind kind) {
  std::unique_lock lock(mu_);
  synced_.insert(kind);
}

bool PolicyIndex::Synced() const {
  std::shared_lock lock(mu_);
  return synced_.size() == 4;
}

std::expected<RuleList, std::string> PolicyIndex::RoleRules(std::string_view kind,
                                                            std::string_view name,
                                                            std::string_view ns) const {
  std::shared_lock lock(mu_);
  return RoleRulesLocked(kind, name, ns);
}

std::expected<RuleList, std::string> PolicyIndex::RoleRulesLocked(std::string_view kind,
                                                                  std::string_view name,
                                                                  std::string_view ns) const {
  if (kind == "ClusterRole") {
    if (auto it = cluster_roles_.find(name); it != cluster_roles_.end()) return it->second;
    return std::unexpected("clusterrole.rbac.authorization.k8s.io " + util::Quote(name) +
                           " not found");
  }
  if (kind == "Role") {
    if (auto in = roles_.find(ns); in != roles_.end()) {
      if (auto it = in->second.find(name); it != in->second.end()) return it->second;
    }
    return std::unexpected("role.rbac.authorization.k8s.io " + util::Quote(name) + " not found");
  }
  return std::unexpected("unsupported role reference kind: " + util::Quote(kind));
}

void PolicyIndex::VisitRulesFor(const authn::UserInfo& user, std::string_view ns,
                                const Visitor& visit) const {
  std::shared_lock lock(mu_);
  auto scope = [&](const Scope& bindings, std::string_view binding_ns) {
    for (const Binding* b : bindings.For(user)) {
      auto subject = std::ranges::find_if(
          b->subjects, [&](const Subject& s) { return Applies(s, user, binding_ns); });
      if (subject == b->subjects.end()) continue;
      auto rules = RoleRulesLocked(b->role_kind, b->role_name, binding_ns);
      if (!rules) {
        if (!visit(nullptr, nullptr, &rules.error())) return false;
        continue;
      }
      const RuleSource source{*b, *subject};
      for (const PolicyRule& rule : **rules) {
        if (!visit(&source, &rule, nullptr)) return false;
      }
    }
    return true;
  };
  if (!scope(cluster_bindings_, "")) return;
  if (ns.empty()) return;
  if (auto it = role_bindings_.find(ns); it != role_bindings_.end()) scope(it->second, ns);
}

std::pair<std::vector<PolicyRule>, std::string> PolicyIndex::RulesFor(const authn::UserInfo& user,
                                                                      std::string_view ns) const {
  std::vector<PolicyRule> rules;
  std::vector<std::string> errors;
  VisitRulesFor(user, ns, [&](const RuleSource*, const PolicyRule* rule, const std::string* error) {
    if (rule) rules.push_back(*rule);
    if (error) errors.push_back(*error);
    return true;
  });
  return {std::move(rules), AggregateErrors(errors)};
}

}  // namespace authz::rbac
