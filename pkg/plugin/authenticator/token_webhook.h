#pragma once
// --authentication-token-webhook-config-file: a bearer token no local authenticator knows is
// asked of a remote service as a TokenReview (authentication.k8s.io/v1beta1, or v1 with
// --authentication-token-webhook-version) posted to the server the kubeconfig file names, as
// upstream's token webhook asks. spec.audiences are the server's --api-audiences; the answer's
// status.audiences (or, when it names none, those same audiences) must share one with them.
// status.authenticated with status.user is the user; otherwise the token is not this one's
// (status.error, when set, makes it an error). Users and refusals are kept for the cache TTL by
// a hash of the token; errors, and a service that does not answer after retries, are not.
//
// Threads: immutable but for the cache (locked); reviews run on the caller's executor.

#include <expected>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "pkg/genericserver/authn/authenticator.h"
#include "pkg/util/duration.h"

namespace authn {

struct TokenWebhookOptions {
  std::string config_file;
  std::string version = "v1beta1";  // or "v1"
  util::Duration cache_ttl = std::chrono::minutes(2);
  std::vector<std::string> api_audiences;
};

std::expected<AuthenticatorPtr, std::string> NewTokenWebhookAuthenticator(
    const TokenWebhookOptions& options, boost::asio::any_io_executor executor);

}  // namespace authn
