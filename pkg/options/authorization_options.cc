#include "pkg/options/authorization_options.h"

#include <algorithm>
#include <set>

#include "pkg/genericserver/authz/authorizer.h"
#include "pkg/util/strings.h"

namespace options {

void AuthorizationOptions::AddFlags(FlagSet& fs) {
  fs.Section("Authorization flags");
  fs.StringList("authorization-mode", &modes,
                "Ordered list of plug-ins to do authorization on secure port. Comma-delimited "
                "list of: AlwaysAllow,AlwaysDeny,RBAC,Webhook. Members of system:masters are "
                "always allowed.");
  fs.String("authorization-webhook-config-file", &webhook_config_file,
            "For --authorization-mode=Webhook: a kubeconfig naming the service that decides "
            "(its server URL, CA and client credentials), asked with SubjectAccessReviews.");
  fs.String("authorization-webhook-version", &webhook_version,
            "Which SubjectAccessReview version the webhook speaks: v1 or v1beta1.");
  fs.Duration("authorization-webhook-cache-authorized-ttl", &webhook_cache_authorized_ttl,
              "How long the webhook's allowing answers are reused.");
  fs.Duration("authorization-webhook-cache-unauthorized-ttl", &webhook_cache_unauthorized_ttl,
              "How long the webhook's other answers (denied, no opinion) are reused.");
}

std::vector<std::string> AuthorizationOptions::Validate() const {
  std::vector<std::string> errors;
  if (modes.empty()) errors.push_back("at least one authorization-mode must be passed");
  std::set<std::string> seen;
  for (const std::string& mode : modes) {
    if (mode != authz::kModeAlwaysAllow && mode != authz::kModeAlwaysDeny &&
        mode != authz::kModeRBAC && mode != authz::kModeWebhook) {
      errors.push_back("authorization-mode " + util::Quote(mode) +
                       " is not a valid mode (supported: AlwaysAllow, AlwaysDeny, RBAC, Webhook)");
    }
    if (!seen.insert(mode).second) {
      errors.push_back("authorization-mode " + util::Quote(mode) +
                       " has mode specified more than once");
    }
  }
  const bool webhook = std::ranges::find(modes, authz::kModeWebhook) != modes.end();
  if (webhook && webhook_config_file.empty()) {
    errors.push_back("authorization-mode Webhook's authorization config file not passed");
  }
  if (!webhook && !webhook_config_file.empty()) {
    errors.push_back("cannot specify --authorization-webhook-config-file without mode Webhook");
  }
  if (webhook_version != "v1" && webhook_version != "v1beta1") {
    errors.push_back("unsupported authorization webhook version " + util::Quote(webhook_version) +
                     ", supported versions are \"v1\", \"v1beta1\"");
  }
  return errors;
}

}  // namespace options
