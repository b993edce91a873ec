#include "pkg/genericserver/server/mux.h"

#include "pkg/genericserver/server/responses.h"
#include "pkg/util/log.h"

namespace genericserver {

void PathMux::Handle(std::string path, HandlerPtr handler) {
  exact_[std::move(path)] = std::move(handler);
}

void PathMux::HandlePrefix(std::string prefix, HandlerPtr handler) {
  prefixes_[std::move(prefix)] = std::move(handler);
}

Handler* PathMux::Find(std::string_view path) const {
  if (auto it = exact_.find(path); it != exact_.end()) return it->second.get();
  // Longest prefix: walk back from the last key not greater than path.
  auto it = prefixes_.upper_bound(path);
  while (it != prefixes_.begin()) {
    --it;
    if (path.starts_with(it->first)) return it->second.get();
    // Keys sharing no first character with path cannot match any more.
    if (it->first.empty() || path.empty() || it->first[0] != path[0]) break;
  }
  return nullptr;
}

Awaitable<void> Director::Serve(RequestContext& ctx, ResponseWriter& out) {
  if (Handler* h = mux_.Find(ctx.request.path)) {
    KLOG_V(5) << name_ << ": " << ctx.request.method << " " << ctx.request.path
              << " served by its own routes";
    co_await h->Serve(ctx, out);
    co_return;
  }
  KLOG_V(5) << name_ << ": " << ctx.request.method << " " << ctx.request.path
            << " delegated to the next server";
  co_await not_found_.Serve(ctx, out);
}

Awaitable<void> NotFoundHandler::Serve(RequestContext& ctx, ResponseWriter& out) {
  co_await WriteStatus(out, apimachinery::NewPathNotFound());
}

}  // namespace genericserver
