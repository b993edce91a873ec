#pragma once
// The loop every CSR controller runs (upstream's certificates.CertificateController): the
// shared CertificateSigningRequest informer's adds, updates and deletes queue the request's
// name; `workers` workers pop names once the cache synced and hand the handler a copy of the
// cached request, unless it is gone or already has a certificate. A handler's error requeues
// the name with the certificate queue's limiter (per name 200 ms doubling to 1000 s, at most
// 10 per second overall, burst 100) and is logged; an ignorable one (a request the approver
// recognized but may not approve) is retried the same way and logged only at -v 4.
//
// Threads: the handlers of the informer run on its strand and only enqueue; the queue, the
// workers and the handler calls run on the controller's queue strand.

#include <expected>
#include <functional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/controller/controller_context.h"
#include "pkg/genericserver/server/awaitable.h"

namespace controller::certificates {

struct HandleError {
  std::string message;
  bool ignorable = false;
};
using HandleResult = std::expected<void, HandleError>;
using CSRHandler = std::function<Awaitable<HandleResult>(nlohmann::json csr)>;

// Registers the handler on the shared CSR informer and spawns the workers; `name` is
// upstream's ("csrapproving", "csrsigning-kubelet-serving", ...), for the logs.
void StartCertificateController(ControllerContext& ctx, std::string name, CSRHandler handler,
                                int workers);

}  // namespace controller::certificates
