#pragma once
// Routes a path to a handler: exact paths first, then the longest matching prefix
// (a prefix ends with '/'). Routes are added while the server is built, before it
// serves; lookups afterwards are lock-free reads.

#include <map>
#include <string>
#include <string_view>

#include "pkg/genericserver/server/handler.h"

namespace genericserver {

class PathMux {
 public:
  // Replaces any handler already registered for the same path or prefix.
  void Handle(std::string path, HandlerPtr handler);
  void HandlePrefix(std::string prefix, HandlerPtr handler);
  // The handler for path, or nullptr.
  Handler* Find(std::string_view path) const;
  bool Has(std::string_view path) const { return Find(path) != nullptr; }

 private:
  std::map<std::string, HandlerPtr, std::less<>> exact_;
  std::map<std::string, HandlerPtr, std::less<>> prefixes_;
};

// A server's own routes, else the next server's: the whole delegation mechanism.
class Director final : public Handler {
 public:
  Director(std::string name, Handler& not_found) : name_(std::move(name)), not_found_(not_found) {}
  PathMux& Mux() { return mux_; }
  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override;

 private:
  std::string name_;
  PathMux mux_;
  Handler& not_found_;
};

// The 404 Status at the end of the chain.
class NotFoundHandler final : public Handler {
 public:
  Awaitable<void> Serve(RequestContext& ctx, ResponseWriter& out) override;
};

}  // namespace genericserver
