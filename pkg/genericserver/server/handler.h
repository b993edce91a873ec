#pragma once
// A Handler serves one request. Implementations are safe to call from several
// connections at once; per-request state lives in RequestContext.

#include <functional>
#include <memory>

#include "pkg/genericserver/server/awaitable.h"
#include "pkg/genericserver/server/request_context.h"
#include "pkg/genericserver/server/response_writer.h"

namespace genericserver {

class Handler {
 public:
  virtual ~Handler() = default;
  virtual Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) = 0;
};
using HandlerPtr = std::unique_ptr<Handler>;

using HandlerFunc = std::function<Awaitable<void>(RequestContext&, ResponseWriter&)>;
// Wraps a function (typically a coroutine lambda; its captures live as long as the handler).
HandlerPtr MakeHandler(HandlerFunc fn);

}  // namespace genericserver
