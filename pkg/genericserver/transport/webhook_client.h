#pragma once
// The client of one webhook, as k8s.io/apiserver/pkg/util/webhook's ClientManager.HookClient
// makes it from a webhook's clientConfig: a URL (https only) or a Service {namespace, name,
// path, port (default 443)} (service wins when both are set), a caBundle (base64 PEM in JSON;
// empty: the system trust store), and a timeout sent along as ?timeout=<d>. Each call is one
// JSON POST over HTTPS/1.1, on a connection kept open from an earlier call made on the same
// executor to the same address when there is one (a few, for 90 s, as Go's transport keeps
// them), else on a new one. The TLS server name and the certificate check use the URL's
// host, or "<name>.<namespace>.svc" for a Service however it is resolved.
//
// Used by CRD conversion webhooks and admission webhooks. Immutable after New but for its
// kept connections (under a mutex); shareable between coroutines on any thread.

#include <chrono>
#include <expected>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/server/awaitable.h"
#include "pkg/util/duration.h"

namespace transport {

// Maps a Service (namespace, name, port) to the "host:port" to dial, as upstream's
// ServiceResolver does with --enable-aggregator-routing (an endpoint of the Service). An error is
// reported as upstream reports a failed dial: `Post "https://<name>.<ns>.svc:<port>/...": <error>`.
using ServiceResolver = std::function<Awaitable<std::expected<std::string, std::string>>(
    std::string ns, std::string name, int port)>;

// What came back over HTTP.
struct HttpAnswer {
  int status = 0;
  std::string content_type;  // the Content-Type header, "" when absent
  std::string body;
};

// The error client-go's rest.Result gives for an answer outside 2xx: the message of a Failure
// Status in the body, else errors.NewGenericServerResponse's text for the code ("the server
// could not find the requested resource", `an error on the server ("<text>") has prevented
// the request from succeeding`).
std::string ErrorAnswerText(const HttpAnswer& answer);

// Who the server is to the webhook: a client certificate and key (PEM), a bearer token;
// empty fields are not presented.
struct ClientIdentity {
  std::string cert_pem, key_pem;
  std::string bearer_token;
};

class WebhookClient {
 public:
  // `webhook_name` is quoted by configuration errors as upstream's are
  // (`failed calling webhook "<name>": webhook configuration must have either service or URL`).
  // `resolve_service` may be empty for URL webhooks. `timeout` bounds each call (resolving,
  // connecting, TLS, sending, waiting for the answer); zero means none.
  static std::expected<std::shared_ptr<const WebhookClient>, std::string> New(
      const nlohmann::json& client_config, std::string_view webhook_name,
      ServiceResolver resolve_service, util::Duration timeout, const ClientIdentity& identity = {});

  // The name a webhook's credentials are chosen by (upstream's AuthenticationInfoResolver
  // target): the URL's host as written ("host[:port]"), or "<name>.<namespace>.svc:<port>".
  static std::string CredentialsTarget(const nlohmann::json& client_config);

  // One POST of `body` (JSON): the answer, or the text Go would put after `Post "<url>": `.
  // Runs the network I/O on the awaiting coroutine's executor; `client` is held meanwhile.
  static Awaitable<std::expected<HttpAnswer, std::string>> Post(
      std::shared_ptr<const WebhookClient> client, std::string body);

  // The URL calls go to, as errors quote it: "https://host[:port]/path?timeout=30s".
  const std::string& url() const;

  struct Impl;
  explicit WebhookClient(std::unique_ptr<Impl> impl);
  ~WebhookClient();

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace transport
