#include "pkg/genericserver/server/cacheable.h"

#include <openssl/evp.h>

#include <ctime>

#include "pkg/util/strings.h"

namespace genericserver {

std::string ContentHash(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha512(), nullptr);
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(size * 2);
  for (unsigned int i = 0; i < size; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 15]);
  }
  return out;
}

namespace {

// If-None-Match: "*" or a list of (possibly weak) entity tags.
bool Matches(std::string_view if_none_match, const std::string& quoted) {
  for (const std::string& entry : util::Split(if_none_match, ',')) {
    std::string_view tag = util::TrimSpace(entry);
    if (tag == "*") return true;
    if (tag.starts_with("W/")) tag.remove_prefix(2);
    if (tag == quoted) return true;
  }
  return false;
}

// If-Modified-Since in any of the three forms Go's http.ParseTime reads; nullopt otherwise.
std::optional<std::time_t> ParseHttpDate(std::string_view text) {
  const std::string s(util::TrimSpace(text));
  for (const char* format :
       {"%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"}) {
    std::tm tm{};
    const char* end = strptime(s.c_str(), format, &tm);
    if (end && *end == '\0') return timegm(&tm);
  }
  return std::nullopt;
}

bool NotModifiedSince(const RequestContext& ctx,
                      const std::optional<std::chrono::system_clock::time_point>& modified) {
  auto since = ctx.request.headers.Get("If-Modified-Since");
  if (!modified || !since) return false;
  auto t = ParseHttpDate(*since);
  // Go compares whole seconds and ignores a zero modification time.
  return t && std::chrono::system_clock::to_time_t(*modified) <= *t;
}

}  // namespace

std::string HttpDate(std::chrono::system_clock::time_point t) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[64];
  const size_t n = std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return std::string(buf, n);
}

Awaitable<void> WriteCacheable(const RequestContext& ctx, ResponseWriter& out, Cacheable response) {
  if (response.etag.empty()) response.etag = ContentHash(response.body);
  const std::string quoted = "\"" + response.etag + "\"";
  Response r;
  r.headers.Set("ETag", quoted);
  if (!response.cache_control.empty()) r.headers.Set("Cache-Control", response.cache_control);
  if (response.vary_accept) r.headers.Set("Vary", "Accept");
  auto if_none_match = ctx.request.headers.Get("If-None-Match");
  const bool not_modified = if_none_match ? Matches(*if_none_match, quoted)
                                          : NotModifiedSince(ctx, response.last_modified);
  if (not_modified) {
    r.status = 304;
  } else {
    r.status = 200;
    r.headers.Set("Content-Type", response.content_type);
    if (response.last_modified) r.headers.Set("Last-Modified", HttpDate(*response.last_modified));
    r.body = std::move(response.body);
  }
  co_await out.Respond(std::move(r));
}

}  // namespace genericserver
