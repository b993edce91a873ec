#include "pkg/options/authentication_options.h"

#include <algorithm>
#include <filesystem>

#include "pkg/genericserver/authz/authorizer.h"
#include "pkg/util/log.h"
#include "pkg/util/strings.h"

namespace options {

void AuthenticationOptions::AddFlags(FlagSet& fs) {
  fs.Section("Authentication flags");
  fs.String("client-ca-file", &client_ca_file,
            "PEM bundle of CAs whose client certificates are accepted, besides the generated "
            "CA; the certificate's CN is the user name and its O entries the groups.");
  fs.String("token-auth-file", &token_auth_file,
            "CSV file of static bearer tokens: token,user,uid[,\"group1,group2\"].");
  fs.Bool("anonymous-auth", &anonymous_auth,
          "Requests without credentials become system:anonymous in group "
          "system:unauthenticated. Turned off under --authorization-mode=AlwaysAllow.");
}

std::vector<std::string> AuthenticationOptions::Validate() const {
  std::vector<std::string> errors;
  for (const auto& [flag, path] : {std::pair{"--client-ca-file", client_ca_file},
                                   std::pair{"--token-auth-file", token_auth_file}}) {
    if (!path.empty() && !std::filesystem::is_regular_file(path)) {
      errors.push_back(std::string(flag) + " " + util::Quote(path) + ": no such file");
    }
  }
  return errors;
}

void AuthenticationOptions::Complete(const std::vector<std::string>& modes) {
  if (anonymous_auth && std::ranges::find(modes, authz::kModeAlwaysAllow) != modes.end()) {
    KLOG_WARNING << "AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting "
                    "AnonymousAuth to false. You should use a different authorizer";
    anonymous_auth = false;
  }
}

}  // namespace options
