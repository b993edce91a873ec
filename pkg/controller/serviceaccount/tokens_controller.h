#pragma once
// serviceaccount-token-controller (upstream's TokensController): Secrets of type
// kubernetes.io/service-account-token that name a ServiceAccount in the annotation
// `kubernetes.io/service-account.name` get `token` (a legacy token signed with
// --service-account-private-key-file), `ca.crt` (the root CA) and `namespace`, and the
// annotation `kubernetes.io/service-account.uid`; a token Secret whose account is gone (or
// has another uid) is deleted, as are an account's token Secrets when it is deleted; a
// deleted token Secret is removed from its account's `secrets` list. As upstream since 1.24,
// no Secret is created for an account: users create them.
//
// Without a private key the controller is not started (upstream's "no private key").
//
// Threads: the informers' handlers only enqueue; each of the two queues (accounts, secrets)
// owns its strand, and the syncs run there.

#include <expected>
#include <string>

#include "pkg/controller/controller_context.h"

namespace controller::serviceaccount {

std::expected<InitResult, std::string> StartTokensController(ControllerContext& ctx);

}  // namespace controller::serviceaccount
