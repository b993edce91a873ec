#pragma once
// --use-service-account-credentials, as upstream's dynamic controller client builder: each
// controller acts as the service account kube-system/<controller name>, made if missing,
// with a token from the TokenRequest API (an hour long, renewed when 80% of it has
// passed), so RBAC gives it its system:controller:<name> role and nothing more.
//
// The token source is thread-safe (a mutex guards its cached token); the accounts and
// tokens are asked for with the controller manager's own client.

#include <memory>
#include <string>

#include "pkg/client/rest/client.h"

namespace controllermanager {

// A client with the root client's settings whose requests carry the account's token.
std::expected<std::shared_ptr<client::RestClient>, std::string> ServiceAccountClient(
    std::shared_ptr<client::RestClient> root, const std::string& controller,
    boost::asio::any_io_executor io);

}  // namespace controllermanager
