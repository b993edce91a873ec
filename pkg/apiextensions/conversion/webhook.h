#pragma once
// The client of a CRD's conversion webhook (spec.conversion.strategy: Webhook), as upstream's
// apiextensions-apiserver webhookConverter calls it: one ConversionReview
// (apiextensions.k8s.io/v1) per call, POSTed by transport::WebhookClient, the answer
// checked and the objects' metadata restored as upstream does, errors worded as upstream's.
//
// The review itself (body, checks, messages) is in review.h.

#include <chrono>
#include <expected>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/server/awaitable.h"
#include "pkg/genericserver/transport/webhook_client.h"
#include "pkg/util/duration.h"

namespace apiextensions::conversion {

using ServiceResolver = transport::ServiceResolver;

// Upstream's timeout for webhook calls (k8s.io/apiserver/pkg/util/webhook setGlobalDefaults),
// sent along as the query parameter ?timeout=30s.
inline constexpr util::Duration kDefaultWebhookTimeout = std::chrono::seconds(30);

// Built once per CRD (re-built when its conversion settings change); immutable and shareable.
class WebhookConverter {
 public:
  // From crd.spec.conversion.webhook: clientConfig.url (https only) or clientConfig.service
  // {namespace, name, path, port (default 443)} (service wins when both are set, as upstream),
  // clientConfig.caBundle (base64 PEM; empty: the system trust store), conversionReviewVersions
  // (must include "v1": only v1 reviews are spoken). The TLS server name and the certificate check
  // use the URL's host, or "<name>.<namespace>.svc" for a service however it is resolved.
  // `resolve_service` may be empty for URL webhooks. `timeout` bounds each call (resolving,
  // connecting, TLS, sending, waiting for the answer); zero means none.
  static std::expected<std::shared_ptr<WebhookConverter>, std::string> New(
      const nlohmann::json& crd, ServiceResolver resolve_service,
      util::Duration timeout = kDefaultWebhookTimeout);

  // Converts `objects` (all of the CRD's group) to `desired_api_version` ("group/version"):
  // objects already there are kept as they are and not sent; no call at all when none needs
  // converting. Returns all objects in their order, or upstream's error message
  //   conversion webhook for <group>/<version>, Kind=<Kind> failed: Post "<url>": <why>
  //   conversion webhook for ... failed: <result.message of a Failure answer>
  //   conversion webhook for ... returned 1 objects, expected 2
  //   conversion webhook for ... returned invalid converted object at index 0: must have the same
  //     name: a != b
  // naming the GVK of the first object that needed converting, for the caller to turn into a 500
  // Status. One object is upstream's single-object path (its messages say "returned invalid
  // object ..."); more are its list path. A lone object with nothing but apiVersion and kind is
  // converted without a call, as upstream does. Runs the network I/O on the awaiting coroutine's
  // executor; the converter may be dropped while a call runs.
  Awaitable<std::expected<std::vector<nlohmann::json>, std::string>> Convert(
      std::vector<nlohmann::json> objects, std::string desired_api_version) const;

  // The URL calls go to, as errors quote it: "https://host[:port]/path?timeout=30s".
  const std::string& url() const;

  struct Impl;

 private:
  explicit WebhookConverter(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

}  // namespace apiextensions::conversion
