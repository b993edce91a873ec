#pragma once
#include <cstddef>

#include "pkg/genericserver/server/handler.h"

namespace genericserver::filters {
// Answers 413 RequestEntityTooLarge for a request whose body the listener refused to
// read (Request::body_too_large). It sits after authentication and authorization, as
// the body check of upstream's handlers does: strangers get 401, not 413.
HandlerPtr WithRequestBodyLimit(HandlerPtr next, size_t max_bytes);
}  // namespace genericserver::filters
