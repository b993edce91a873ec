#include <algorithm>

#include "pkg/genericserver/authz/authorizer.h"
#include "pkg/genericserver/authz/rbac/rbac_authorizer.h"
#include "pkg/util/strings.h"

namespace authz {

Rules Authorizer::RulesFor(const authn::UserInfo&, std::string_view) const { return {}; }

namespace {

// Everything: what allowing every request amounts to.
Rules AllRules() {
  Rules r;
  r.resource_rules.push_back({{"*"}, {"*"}, {"*"}, {}});
  r.non_resource_rules.push_back({{"*"}, {"*"}});
  return r;
}

class Fixed final : public Authorizer {
 public:
  Fixed(Decision d, std::string reason) : result_{d, std::move(reason), ""} {}
  Awaitable<AuthorizationResult> Authorize(const Attributes&) const override { co_return result_; }
  Rules RulesFor(const authn::UserInfo&, std::string_view) const override {
    return result_.decision == Decision::kAllow ? AllRules() : Rules{};
  }

 private:
  AuthorizationResult result_;
};

class PrivilegedGroups final : public Authorizer {
 public:
  explicit PrivilegedGroups(std::vector<std::string> groups) : groups_(std::move(groups)) {}
  Awaitable<AuthorizationResult> Authorize(const Attributes& a) const override {
    AuthorizationResult r;
    for (const std::string& g : groups_) {
      if (a.user.InGroup(g)) r.decision = Decision::kAllow;
    }
    co_return r;
  }
  Rules RulesFor(const authn::UserInfo& user, std::string_view) const override {
    for (const std::string& g : groups_) {
      if (user.InGroup(g)) return AllRules();
    }
    return {};
  }

 private:
  std::vector<std::string> groups_;
};

// What the system:public-info-viewer role gives everyone, authenticated or not: reading
// health and version. Before AlwaysAllow, with DenyAnonymous.
class PublicInfo final : public Authorizer {
 public:
  static bool Public(const endpoints::RequestInfo& r) {
    if (r.is_resource_request || r.verb != "get") return false;
    const std::string& p = r.path;
    if (p == "/version" || p == "/version/") return true;
    for (const char* base : {"/healthz", "/livez", "/readyz"}) {
      std::string_view b = base;
      if (p == b || (p.size() > b.size() && p.starts_with(b) && p[b.size()] == '/')) return true;
    }
    return false;
  }
  Awaitable<AuthorizationResult> Authorize(const Attributes& a) const override {
    AuthorizationResult result;
    if (Public(a.request)) result.decision = Decision::kAllow;
    co_return result;
  }
  Rules RulesFor(const authn::UserInfo&, std::string_view) const override {
    Rules r;
    r.non_resource_rules.push_back(
        {{"get"}, {"/healthz", "/livez", "/readyz", "/version", "/version/"}});
    return r;
  }
};

// AlwaysAllow grants anonymous users no more than the public information.
class DenyAnonymous final : public Authorizer {
 public:
  Awaitable<AuthorizationResult> Authorize(const Attributes& a) const override {
    AuthorizationResult r;
    if (a.user.InGroup(authn::kAllUnauthenticated)) r.decision = Decision::kDeny;
    co_return r;
  }
};

class Union final : public Authorizer {
 public:
  explicit Union(std::vector<AuthorizerPtr> list) : list_(std::move(list)) {}
  Awaitable<AuthorizationResult> Authorize(const Attributes& a) const override {
    AuthorizationResult all;
    for (const AuthorizerPtr& z : list_) {
      AuthorizationResult r = co_await z->Authorize(a);
      if (r.decision != Decision::kNoOpinion) co_return r;
      if (!r.reason.empty()) all.reason += (all.reason.empty() ? "" : "\n") + r.reason;
      if (!r.error.empty()) all.error += (all.error.empty() ? "" : ", ") + r.error;
    }
    co_return all;
  }
  Rules RulesFor(const authn::UserInfo& user, std::string_view ns) const override {
    Rules all;
    // Each rule once, however many authorizers grant it.
    auto add = [](auto& to, const auto& from) {
      for (const auto& rule : from) {
        if (std::find(to.begin(), to.end(), rule) == to.end()) to.push_back(rule);
      }
    };
    for (const AuthorizerPtr& z : list_) {
      Rules r = z->RulesFor(user, ns);
      add(all.resource_rules, r.resource_rules);
      add(all.non_resource_rules, r.non_resource_rules);
      all.incomplete = all.incomplete || r.incomplete;
      if (!r.evaluation_error.empty()) {
        all.evaluation_error += (all.evaluation_error.empty() ? "" : ", ") + r.evaluation_error;
      }
    }
    return all;
  }

 private:
  std::vector<AuthorizerPtr> list_;
};

}  // namespace

AuthorizerPtr NewAlwaysAllow() { return std::make_shared<Fixed>(Decision::kAllow, ""); }
AuthorizerPtr NewAlwaysDeny() {
  return std::make_shared<Fixed>(Decision::kNoOpinion, "Everything is forbidden.");
}
AuthorizerPtr NewPrivilegedGroups(std::vector<std::string> groups) {
  return std::make_shared<PrivilegedGroups>(std::move(groups));
}
AuthorizerPtr NewUnion(std::vector<AuthorizerPtr> authorizers) {
  return std::make_shared<Union>(std::move(authorizers));
}

AuthorizerPtr NewFromModes(const std::vector<std::string>& modes,
                           std::shared_ptr<const rbac::PolicyIndex> policy, AuthorizerPtr webhook) {
  std::vector<AuthorizerPtr> list = {NewPrivilegedGroups({authn::kSystemPrivilegedGroup})};
  for (const std::string& mode : modes) {
    if (mode == kModeAlwaysAllow) {
      list.push_back(std::make_shared<PublicInfo>());
      list.push_back(std::make_shared<DenyAnonymous>());
      list.push_back(NewAlwaysAllow());
    }
    if (mode == kModeAlwaysDeny) list.push_back(NewAlwaysDeny());
    if (mode == kModeRBAC && policy) list.push_back(rbac::NewRBACAuthorizer(policy));
    if (mode == kModeWebhook && webhook) list.push_back(webhook);
  }
  return NewUnion(std::move(list));
}

std::string ForbiddenMessage(const Attributes& a) {
  const endpoints::RequestInfo& r = a.request;
  std::string user = "User " + util::Quote(a.user.name);
  if (!r.is_resource_request) return user + " cannot " + r.verb + " path " + util::Quote(r.path);
  std::string resource = r.resource;
  if (!r.subresource.empty()) resource += "/" + r.subresource;
  std::string msg = user + " cannot " + r.verb + " resource " + util::Quote(resource) +
                    " in API group " + util::Quote(r.api_group);
  if (!r.namespace_.empty()) return msg + " in the namespace " + util::Quote(r.namespace_);
  return msg + " at the cluster scope";
}

apimachinery::Status Forbidden(const Attributes& a, const std::string& reason) {
  std::string why = ForbiddenMessage(a);
  if (!reason.empty()) why += ": " + reason;
  apimachinery::GroupResource resource;
  if (a.request.is_resource_request) resource = {a.request.api_group, a.request.resource};
  return apimachinery::NewForbidden(resource, a.request.name, why);
}

}  // namespace authz
