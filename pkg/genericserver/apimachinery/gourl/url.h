#pragma once
// Go's net/url.Parse and url.ParseRequestURI: what upstream accepts as a URL (webhook
// URLs, the "uri" schema format, CEL's url library), with Go's error texts
// ("parse \"x\": missing protocol scheme"). One port for every caller.

#include <expected>
#include <string>
#include <string_view>

namespace apimachinery::gourl {

struct URL {
  std::string scheme;  // lower-cased
  std::string opaque;  // a rootless path after a scheme ("mailto:x")
  bool has_user = false;
  std::string user;      // the userinfo as written
  std::string host;      // unescaped
  std::string raw_path;  // the path as written (escaped)
  std::string raw_query;
  std::string fragment;  // unescaped
};

// url.Parse (request_uri false: a "#fragment" is split off) or url.ParseRequestURI (true:
// no fragment, the URL must be absolute or start with '/'). The error is Go's *url.Error
// text: "parse \"<url>\": <why>".
std::expected<URL, std::string> Parse(std::string_view raw, bool request_uri = false);

}  // namespace apimachinery::gourl
