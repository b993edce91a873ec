#pragma once
#include "pkg/genericserver/server/handler.h"
#include "pkg/util/duration.h"

namespace genericserver::filters {
// Gives every request that is not long-running a deadline: --request-timeout, or the
// ?timeout= the client asked for when that is shorter. When the deadline passes first,
// the client gets a 504 Timeout Status at once; whatever the handler writes later is
// dropped, and this filter returns only after the handler did (so nothing the handler
// borrowed from the request dies under it).
HandlerPtr WithTimeout(HandlerPtr next, util::Duration request_timeout);
}  // namespace genericserver::filters
