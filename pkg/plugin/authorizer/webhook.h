#pragma once
// --authorization-mode=Webhook: each decision asked of a remote service as a
// SubjectAccessReview (authorization.k8s.io/v1, or v1beta1 with --authorization-webhook-version)
// posted to the server --authorization-webhook-config-file names, as upstream's webhook
// authorizer asks. status.allowed allows, status.denied denies, anything else has no opinion
// (the next mode decides); status.reason is the reason shown. Answers are cached by the review's
// spec: allowed ones for the authorized TTL, others for the unauthorized TTL. A service that does
// not answer (after retries) gives no opinion with an error: unless a later mode allows, the
// request is a 500, as upstream's.
//
// Threads: immutable but for the cache (locked); decisions run on the caller's executor.

#include <expected>
#include <string>

#include <boost/asio/any_io_executor.hpp>

#include "pkg/genericserver/authz/authorizer.h"
#include "pkg/util/duration.h"

namespace authz {

struct WebhookAuthorizerOptions {
  std::string config_file;
  std::string version = "v1beta1";  // or "v1"
  util::Duration authorized_ttl = std::chrono::minutes(5);
  util::Duration unauthorized_ttl = std::chrono::seconds(30);
};

std::expected<AuthorizerPtr, std::string> NewWebhookAuthorizer(
    const WebhookAuthorizerOptions& options, boost::asio::any_io_executor executor);

}  // namespace authz
