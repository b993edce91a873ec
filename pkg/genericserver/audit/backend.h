#pragma once
// Where audit events go: the log file, the webhook, or both. ProcessEvent is called from
// any request's thread and never waits for disk or network (see BufferedBackend).

#include <memory>
#include <string>
#include <vector>

#include "pkg/genericserver/audit/event.h"

namespace audit {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual void ProcessEvent(EventPtr event) = 0;
  // Sends what is buffered (bounded by the backend's own timeouts) and stops; events
  // processed after are dropped. Idempotent.
  virtual void Shutdown() = 0;
};
using BackendPtr = std::shared_ptr<Backend>;

// Every event to each of the backends.
BackendPtr Union(std::vector<BackendPtr> backends);

}  // namespace audit
