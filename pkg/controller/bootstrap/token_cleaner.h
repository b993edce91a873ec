#pragma once
// token-cleaner-controller (disabled by default, as upstream): deletes bootstrap token
// Secrets (type bootstrap.kubernetes.io/token in kube-system) once their `expiration` has
// passed, as upstream's TokenCleaner. Such a Secret added or updated queues its key; the
// sync reads it from the informer's cache: expired (or an `expiration` that does not
// parse) is a delete with a precondition on its uid (NotFound and Conflict are no
// error; other failures are logged, not retried, as upstream); not yet expired queues the
// key again for when it expires. One worker.
//
// Threads: the handler runs on the secrets informer's strand and only enqueues; the sync
// runs on the queue's strand.

#include <expected>
#include <string>

#include "pkg/controller/controller_context.h"

namespace controller::bootstrap {

std::expected<InitResult, std::string> StartTokenCleanerController(ControllerContext& ctx);

}  // namespace controller::bootstrap
