#pragma once
// Keeps the RBAC authorizer's policy (authz::rbac::PolicyIndex) equal to what the four RBAC
// resources hold: each is listed, then watched from the list's revision, and listed again
// whenever its watch ends, until the server shuts down. Reads come from the watch caches.
//
// Each resource is followed by one coroutine on a strand of its own; the index is
// thread-safe, and the authorizer reads it meanwhile from any thread.

#include <memory>

#include "pkg/genericserver/authz/rbac/policy_index.h"
#include "pkg/genericserver/server/lifecycle.h"
#include "pkg/master/bootstrap/rbac_bootstrap.h"

namespace boost::asio {
class io_context;
}

namespace master {

// Starts following once `io` runs. The stores and the lifecycle must outlive it.
void StartRBACPolicyFeed(const bootstrap::RBACStores& stores,
                         std::shared_ptr<authz::rbac::PolicyIndex> policy,
                         genericserver::Lifecycle& lifecycle, boost::asio::io_context& io);

}  // namespace master
