#include "pkg/genericserver/server/config.h"

#include <boost/asio/io_context.hpp>

#include "pkg/genericserver/authn/union.h"
#include "pkg/genericserver/server/generic_apiserver.h"

namespace genericserver {

CompletedConfig Config::Complete() const {
  Config c = *this;
  if (!c.authenticator) c.authenticator = authn::NewUnionAuthenticator({}, /*anonymous=*/true);
  if (!c.authorizer) c.authorizer = authz::NewAlwaysAllow();
  if (!c.request_info_resolver) {
    c.request_info_resolver = std::make_shared<endpoints::RequestInfoResolver>();
  }
  if (!c.metrics) c.metrics = std::make_shared<Metrics>();
  if (!c.lifecycle) c.lifecycle = std::make_shared<Lifecycle>();
  if (!c.io) c.io = std::make_shared<boost::asio::io_context>();
  if (c.external_address.empty()) {
    c.external_address =
        c.secure_serving.bind_address + ":" + std::to_string(c.secure_serving.port);
  }
  return CompletedConfig(std::move(c));
}

std::unique_ptr<GenericAPIServer> CompletedConfig::New(std::string name,
                                                       DelegationTarget& delegate) const {
  return std::make_unique<GenericAPIServer>(std::move(name), *this, delegate);
}

}  // namespace genericserver
