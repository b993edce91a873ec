#pragma once
// Responses a client may cache by content (discovery, OpenAPI): an ETag derived from the
// body, and 304 Not Modified when the request's If-None-Match names it (or, without
// If-None-Match, when If-Modified-Since is not older than Last-Modified), as Go's
// http.ServeContent answers.

#include <chrono>
#include <optional>
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
  // Sent as Last-Modified on a 200 (a 304 has none, as Go drops it beside an ETag).
  std::optional<std::chrono::system_clock::time_point> last_modified;
};

// An HTTP date (RFC 7231 IMF-fixdate, Go's http.TimeFormat): "Mon, 02 Jan 2006 15:04:05 GMT".
std::string HttpDate(std::chrono::system_clock::time_point t);

Awaitable<void> WriteCacheable(const RequestContext& ctx, ResponseWriter& out, Cacheable response);

}  // namespace genericserver
