#pragma once
// Post-start hooks: work that runs once serving has started (bootstrap objects,
// controllers). A server registers them; the outermost server runs every hook of the
// chain; /readyz (and /livez, /healthz) report "poststarthook/<name>" until each is done.

#include <atomic>
#include <expected>
#include <functional>
#include <memory>
#include <string>

#include "pkg/genericserver/server/awaitable.h"
#include "pkg/genericserver/server/healthz.h"

namespace genericserver {

using PostStartHookFunc = std::function<Awaitable<std::expected<void, std::string>>()>;

// Shared by the server that registered it and the one that runs it. Thread-safe.
class PostStartHook {
 public:
  PostStartHook(std::string name, PostStartHookFunc fn)
      : name_(std::move(name)), fn_(std::move(fn)) {}
  const std::string& Name() const { return name_; }
  // Runs the hook once; Done() turns true only when it succeeded.
  Awaitable<std::expected<void, std::string>> Run();
  bool Done() const { return done_; }
  HealthCheck Check() const;

 private:
  std::string name_;
  PostStartHookFunc fn_;
  std::atomic<bool> done_{false};
};
using PostStartHookPtr = std::shared_ptr<PostStartHook>;

// A hook with nothing to wait for: what it stands for started with the server.
Awaitable<std::expected<void, std::string>> Done();
// A hook that reports on work running elsewhere: done once `condition` holds (checked
// every 10 ms; `condition` must be thread-safe).
PostStartHookFunc WaitFor(std::function<bool()> condition);

}  // namespace genericserver
