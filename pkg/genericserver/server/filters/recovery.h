#pragma once
#include "pkg/genericserver/server/handler.h"

namespace genericserver::filters {
// Outermost filter: an exception from anything inside becomes a 500 Status (or, if the
// response had already started, a closed connection); the process never dies of one.
HandlerPtr WithPanicRecovery(HandlerPtr next);
}  // namespace genericserver::filters
