#pragma once
// serviceaccount-controller: every active namespace has the ServiceAccount `default`
// (upstream's ServiceAccountsController with its default list of one). It watches
// namespaces and service accounts; a namespace added or updated, or its `default` account
// deleted, queues the namespace; the sync creates the account when the informer's cache
// lacks it (AlreadyExists is success; terminating namespaces are left alone).
//
// Threads: handlers run on the informers' strands and only enqueue; the sync runs on the
// queue's strand.

#include <expected>
#include <string>

#include "pkg/controller/controller_context.h"

namespace controller::serviceaccount {

std::expected<InitResult, std::string> StartServiceAccountController(ControllerContext& ctx);

}  // namespace controller::serviceaccount
