#pragma once
// The aggregator's proxy (upstream's proxyHandler): a request for /apis/<group>/<version>/...
// of a remote APIService is sent to an endpoint of its Service over HTTPS, with the
// caller's identity in X-Remote-User / X-Remote-Group / X-Remote-Extra-* and the
// aggregator's client certificate; the answer comes back as it arrives (watches stream).
// /apis/<group> of a group only remote APIServices serve is answered here. Everything else
// goes to `next` (the aggregator's own routes, then the delegate).

#include <expected>
#include <functional>
#include <string>

#include "pkg/aggregator/apiservice_table.h"
#include "pkg/genericserver/server/handler.h"
#include "pkg/genericserver/server/lifecycle.h"

namespace aggregator {

// Where a Service's port is reached ("host:port"), or why it cannot be.
using ServiceResolver = std::function<Awaitable<std::expected<std::string, std::string>>(
    std::string ns, std::string name, int port)>;

struct ProxyConfig {
  const APIServiceTable* table = nullptr;
  ServiceResolver resolve;
  genericserver::Handler* next = nullptr;
  genericserver::Lifecycle* lifecycle = nullptr;
  // Told the name of an APIService a proxied request could not reach, so that its
  // availability is checked again at once.
  std::function<void(const std::string&)> unreachable;
};

genericserver::HandlerPtr NewProxyHandler(ProxyConfig config);

// The identity headers upstream's aggregator sends (transport.SetAuthProxyHeaders).
void SetAuthProxyHeaders(genericserver::Headers& headers, const authn::UserInfo& user);

}  // namespace aggregator
