#pragma once
// Responses a client may cache by content (discovery, OpenAPI): an ETag derived from the
// body, and 304 Not Modified when the request's If-None-Match names it.

#include <string>
#include <string_view>

#include "pkg/genericserver/server/awaitable.h"
#include "pkg/genericserver/server/request_context.h"
#include "pkg/genericserver/server/response_writer.h"

namespace genericserver {

// SHA-512 of `data` as upper-case hex, the form upstream uses in OpenAPI URLs.
std::string ContentHash(std::string_view data);

struct Cacheable {
  std::string content_type;
  std::string body;
  std::string etag;           // without quotes; ContentHash(body) when empty
  std::string cache_control;  // omitted when empty
  bool vary_accept = false;   // the body depends on Accept
};

Awaitable<void> WriteCacheable(const RequestContext& ctx, ResponseWriter& out, Cacheable response);

}  // namespace genericserver
