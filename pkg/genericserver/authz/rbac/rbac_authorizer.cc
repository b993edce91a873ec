#include "pkg/genericserver/authz/rbac/rbac_authorizer.h"

namespace authz::rbac {
namespace {

class RBACAuthorizer final : public Authorizer {
 public:
  explicit RBACAuthorizer(std::shared_ptr<const PolicyIndex> index) : index_(std::move(index)) {}

  Awaitable<AuthorizationResult> Authorize(const Attributes& a) const override {
    co_return Decide(a);
  }

  AuthorizationResult Decide(const Attributes& a) const {
    AuthorizationResult result;
    std::vector<std::string> errors;
    index_->VisitRulesFor(
        a.user, a.request.namespace_,
        [&](const RuleSource* source, const PolicyRule* rule, const std::string* error) {
          if (rule && RuleAllows(a.request, *rule)) {
            result = {Decision::kAllow, "RBAC: allowed by " + source->Describe(), ""};
            return false;
          }
          if (error) errors.push_back(*error);
          return true;
        });
    if (result.decision == Decision::kAllow || errors.empty()) return result;
    return {Decision::kNoOpinion, "RBAC: " + AggregateErrors(errors), ""};
  }

  authz::Rules RulesFor(const authn::UserInfo& user, std::string_view ns) const override {
    authz::Rules out;
    auto [rules, errors] = index_->RulesFor(user, ns);
    for (PolicyRule& r : rules) {
      if (!r.resources.empty()) {
        out.resource_rules.push_back({r.verbs, r.api_groups, r.resources, r.resource_names});
      }
      if (!r.non_resource_urls.empty()) {
        out.non_resource_rules.push_back({r.verbs, r.non_resource_urls});
      }
    }
    out.evaluation_error = std::move(errors);
    return out;
  }

 private:
  std::shared_ptr<const PolicyIndex> index_;
};

}  // namespace

AuthorizerPtr NewRBACAuthorizer(std::shared_ptr<const PolicyIndex> index) {
  return std::make_shared<RBACAuthorizer>(std::move(index));
}

}  // namespace authz::rbac
