#include "pkg/genericserver/server/cacheable.h"

#include <openssl/evp.h>

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

}  // namespace

Awaitable<void> WriteCacheable(const RequestContext& ctx, ResponseWriter& out, Cacheable response) {
  if (response.etag.empty()) response.etag = ContentHash(response.body);
  const std::string quoted = "\"" + response.etag + "\"";
  Response r;
  r.headers.Set("ETag", quoted);
  if (!response.cache_control.empty()) r.headers.Set("Cache-Control", response.cache_control);
  if (response.vary_accept) r.headers.Set("Vary", "Accept");
  auto if_none_match = ctx.request.headers.Get("If-None-Match");
  if (if_none_match && Matches(*if_none_match, quoted)) {
    r.status = 304;
  } else {
    r.status = 200;
    r.headers.Set("Content-Type", response.content_type);
    r.body = std::move(response.body);
  }
  co_await out.Respond(std::move(r));
}

}  // namespace genericserver
