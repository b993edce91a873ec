#pragma once
// ttl-after-finished-controller: deletes finished Jobs (batch/v1) once
// spec.ttlSecondsAfterFinished has passed since they finished, as upstream's
// TTLAfterFinished controller. A Job added or updated that needs cleaning up (job_ttl.h)
// and is not being deleted queues its key. The sync decides from the informer's cache:
// not yet expired queues the key again for the time left; expired reads the Job again from
// the API server and decides once more on that copy (its TTL may have changed meanwhile),
// then deletes it with propagationPolicy Foreground and a precondition on that copy's uid.
// Failures (a condition without a time, a failed read or delete) retry with backoff.
// --concurrent-ttl-after-finished-syncs workers.
//
// Threads: the handlers run on the jobs informer's strand and only enqueue; the syncs run
// on the queue's strand, interleaved at their awaits.

#include <expected>
#include <string>

#include "pkg/controller/controller_context.h"

namespace controller::ttlafterfinished {

std::expected<InitResult, std::string> StartTTLAfterFinishedController(ControllerContext& ctx);

}  // namespace controller::ttlafterfinished
