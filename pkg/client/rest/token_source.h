#pragma once
// A bearer token that changes over time (a service account's, requested and renewed
// through the TokenRequest API): RestClient asks for it before every request.
// Implementations are thread-safe and cache the token between requests.

#include <expected>
#include <string>

#include "pkg/genericserver/server/awaitable.h"

namespace client {

class TokenSource {
 public:
  virtual ~TokenSource() = default;
  // The token to send now, or why there is none.
  virtual Awaitable<std::expected<std::string, std::string>> Token() = 0;
};

}  // namespace client
