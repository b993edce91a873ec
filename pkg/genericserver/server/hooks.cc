#include "pkg/genericserver/server/hooks.h"

namespace genericserver {

Awaitable<std::expected<void, std::string>> PostStartHook::Run() {
  auto result = co_await fn_();
  if (result) done_ = true;
  co_return result;
}

HealthCheck PostStartHook::Check() const {
  return {"poststarthook/" + name_, [this]() -> std::expected<void, std::string> {
            if (done_) return {};
            return std::unexpected("not finished");
          }};
}

}  // namespace genericserver
