#include "pkg/options/authorization_options.h"

#include <set>

#include "pkg/genericserver/authz/authorizer.h"
#include "pkg/util/strings.h"

namespace options {

void AuthorizationOptions::AddFlags(FlagSet& fs) {
  fs.Section("Authorization flags");
  fs.StringList("authorization-mode", &modes,
                "Ordered list of plug-ins to do authorization on secure port. Comma-delimited "
                "list of: AlwaysAllow,AlwaysDeny,RBAC. Members of system:masters are always "
                "allowed.");
}

std::vector<std::string> AuthorizationOptions::Validate() const {
  std::vector<std::string> errors;
  if (modes.empty()) errors.push_back("at least one authorization-mode must be passed");
  std::set<std::string> seen;
  for (const std::string& mode : modes) {
    if (mode != authz::kModeAlwaysAllow && mode != authz::kModeAlwaysDeny &&
        mode != authz::kModeRBAC) {
      errors.push_back("authorization-mode " + util::Quote(mode) +
                       " is not a valid mode (supported: AlwaysAllow, AlwaysDeny, RBAC)");
    }
    if (!seen.insert(mode).second) {
      errors.push_back("authorization-mode " + util::Quote(mode) +
                       " has mode specified more than once");
    }
  }
  return errors;
}

}  // namespace options
