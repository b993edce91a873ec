#include "pkg/genericserver/endpoints/filters/impersonation.h"

#include <algorithm>
#include "pkg/genericserver/audit/context.h"

#include "pkg/genericserver/server/responses.h"
#include "pkg/util/log.h"
#include "pkg/util/strings.h"

namespace genericserver::filters {
namespace {

constexpr std::string_view kUser = "Impersonate-User";
constexpr std::string_view kGroup = "Impersonate-Group";
constexpr std::string_view kUid = "Impersonate-Uid";
constexpr std::string_view kExtraPrefix = "impersonate-extra-";
constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";

// "system:serviceaccount:<ns>:<name>" split, or nothing.
std::optional<std::pair<std::string, std::string>> ServiceAccount(std::string_view user) {
  if (!user.starts_with(kServiceAccountPrefix)) return std::nullopt;
  user.remove_prefix(kServiceAccountPrefix.size());
  const size_t colon = user.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == user.size() ||
      user.find(':', colon + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  return std::pair{std::string(user.substr(0, colon)), std::string(user.substr(colon + 1))};
}

class Impersonation final : public Handler {
 public:
  Impersonation(HandlerPtr next, authz::AuthorizerPtr a)
      : next_(std::move(next)), authorizer_(std::move(a)) {}

  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override {
    const Headers& headers = ctx.request.headers;
    const std::optional<std::string_view> user_header = headers.Get(kUser);
    std::vector<std::string> groups;
    for (std::string_view g : headers.Values(kGroup)) groups.emplace_back(g);
    const std::optional<std::string_view> uid = headers.Get(kUid);
    std::map<std::string, std::vector<std::string>> extra;
    for (const auto& [name, value] : headers.Items()) {
      const std::string lower = util::ToLower(name);
      if (lower.starts_with(kExtraPrefix)) {
        extra[util::PercentDecode(lower.substr(kExtraPrefix.size()))].push_back(value);
      }
    }
    if (!user_header && groups.empty() && !uid && extra.empty()) {
      co_await next_->Serve(ctx, out);
      co_return;
    }
    if (!user_header || user_header->empty()) {
      co_await WriteStatus(out, apimachinery::NewInternalError(
                                    "requested impersonation of groups, a uid or extra fields "
                                    "without impersonating a user"));
      co_return;
    }
    static const authn::UserInfo kNobody;
    const authn::UserInfo& requester = ctx.user ? *ctx.user : kNobody;
    const std::string name(*user_header);

    // Each part of the impersonation, authorized in upstream's order.
    std::vector<endpoints::RequestInfo> asks;
    const auto account = ServiceAccount(name);
    if (account) {
      asks.push_back(endpoints::ResourceRequest("impersonate", "", "serviceaccounts",
                                                account->first, account->second));
    } else {
      asks.push_back(endpoints::ResourceRequest("impersonate", "", "users", "", name));
    }
    for (const std::string& g : groups)
      asks.push_back(endpoints::ResourceRequest("impersonate", "", "groups", "", g));
    for (const auto& [key, values] : extra) {
      for (const std::string& v : values) {
        asks.push_back(endpoints::ResourceRequest("impersonate", "authentication.k8s.io",
                                                  "userextras", "", v, key));
      }
    }
    if (uid)
      asks.push_back(endpoints::ResourceRequest("impersonate", "authentication.k8s.io", "uids", "",
                                                std::string(*uid)));
    for (const endpoints::RequestInfo& ask : asks) {
      const authz::Attributes attributes{requester, ask};
      const authz::AuthorizationResult r = co_await authorizer_->Authorize(attributes);
      if (r.decision == authz::Decision::kAllow) continue;
      apimachinery::Status refused = authz::Forbidden(attributes, r.reason);
      KLOG_V(4) << "impersonation refused: " << refused.message;
      co_await WriteStatus(out, refused);
      co_return;
    }

    authn::UserInfo as;
    as.name = name;
    as.uid = uid ? std::string(*uid) : "";
    as.groups = std::move(groups);
    as.extra = std::move(extra);
    if (account && as.groups.empty()) {
      as.groups = {"system:serviceaccounts", "system:serviceaccounts:" + account->first};
    }
    const char* everyone =
        name == authn::kAnonymousUser ? authn::kAllUnauthenticated : authn::kAllAuthenticated;
    if (!as.InGroup(everyone)) as.groups.push_back(everyone);
    KLOG_V(4) << "impersonating " << util::Quote(as.name) << " for " << util::Quote(requester.name);
    if (ctx.audit) ctx.audit->LogImpersonatedUser(as);
    ctx.user = std::move(as);
    ctx.request.headers.Remove(kUser);
    ctx.request.headers.Remove(kGroup);
    ctx.request.headers.Remove(kUid);
    std::vector<std::string> extra_headers;
    for (const auto& [header, value] : ctx.request.headers.Items()) {
      if (util::ToLower(header).starts_with(kExtraPrefix)) extra_headers.push_back(header);
    }
    for (const std::string& header : extra_headers) ctx.request.headers.Remove(header);
    co_await next_->Serve(ctx, out);
  }

 private:
  HandlerPtr next_;
  authz::AuthorizerPtr authorizer_;
};

}  // namespace

HandlerPtr WithImpersonation(HandlerPtr next, authz::AuthorizerPtr authorizer) {
  return std::make_unique<Impersonation>(std::move(next), std::move(authorizer));
}

}  // namespace genericserver::filters
