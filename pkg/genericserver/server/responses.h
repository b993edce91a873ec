#pragma once
// Helpers that answer a request in the forms the API uses.

#include <string>

#include "pkg/genericserver/apimachinery/status.h"
#include "pkg/genericserver/server/awaitable.h"
#include "pkg/genericserver/server/response_writer.h"

namespace genericserver {

// A Status error as JSON with HTTP status status.code; Retry-After when the status
// carries retryAfterSeconds.
Awaitable<void> WriteStatus(ResponseWriter& out, const apimachinery::Status& status);
Awaitable<void> WriteJSON(ResponseWriter& out, int code, std::string body);
Awaitable<void> WriteText(ResponseWriter& out, int code, std::string body);

}  // namespace genericserver
