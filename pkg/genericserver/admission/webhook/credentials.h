#pragma once
// What the API server presents to an admission webhook (upstream's
// AuthenticationInfoResolver): the kubeconfig a WebhookAdmissionConfiguration of
// --admission-control-config-file names (`kubeConfigFile`), whose `users` are chosen by the
// webhook's host: "<host>:<port>" exactly, then "*.<domain>" wildcards, then without the port
// 443, then "*"; a client certificate (`client-certificate[-data]`, `client-key[-data]`) and
// a bearer token (`token`, `tokenFile`). Immutable after Load.

#include <expected>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/genericserver/transport/webhook_client.h"

namespace admission::webhook {

using Credentials = transport::ClientIdentity;

class CredentialsResolver {
 public:
  // From a WebhookAdmissionConfiguration (JSON text); one that names no kubeconfig gives an
  // empty resolver. The error is what stops the server.
  static std::expected<std::shared_ptr<const CredentialsResolver>, std::string> FromConfiguration(
      const std::string& configuration);
  // For a webhook at `target` ("host[:port]" as its URL gives it, or
  // "<service>.<namespace>.svc:<port>"); nothing when the kubeconfig has no user for it.
  std::optional<Credentials> For(std::string_view target) const;

 private:
  std::map<std::string, Credentials, std::less<>> users_;
};

}  // namespace admission::webhook
