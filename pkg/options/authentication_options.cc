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
  fs.StringList("service-account-issuer", &service_account_issuers,
                "The issuer (iss) of the service-account tokens this server signs (the first) "
                "and accepts (all). Default: https://kubernetes.default.svc.cluster.local.");
  fs.StringList("service-account-key-file", &service_account_key_files,
                "PEM files of public (or private) keys that verify service-account tokens, "
                "besides the signing key.");
  fs.String("service-account-signing-key-file", &service_account_signing_key_file,
            "PEM private key (RSA or ECDSA P-256) that signs service-account tokens. Default: "
            "sa.key in --cert-dir, generated on first start.");
  fs.StringList("api-audiences", &api_audiences,
                "Audiences a token must name to be accepted, and the default audiences of "
                "TokenRequests. Default: the first --service-account-issuer.");
}

std::vector<std::string> AuthenticationOptions::Validate() const {
  std::vector<std::string> errors;
  std::vector<std::pair<std::string, std::string>> files = {
      {"--client-ca-file", client_ca_file},
      {"--token-auth-file", token_auth_file},
      {"--service-account-signing-key-file", service_account_signing_key_file}};
  for (const std::string& f : service_account_key_files) {
    files.emplace_back("--service-account-key-file", f);
  }
  for (const auto& [flag, path] : files) {
    if (!path.empty() && !std::filesystem::is_regular_file(path)) {
      errors.push_back(flag + " " + util::Quote(path) + ": no such file");
    }
  }
  return errors;
}

void AuthenticationOptions::Complete(const std::vector<std::string>& modes) {
  if (service_account_issuers.empty()) {
    service_account_issuers = {"https://kubernetes.default.svc.cluster.local"};
  }
  if (api_audiences.empty()) api_audiences = {service_account_issuers.front()};
  if (anonymous_auth && std::ranges::find(modes, authz::kModeAlwaysAllow) != modes.end()) {
    KLOG_WARNING << "AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting "
                    "AnonymousAuth to false. You should use a different authorizer";
    anonymous_auth = false;
  }
}

}  // namespace options
