#include "pkg/genericserver/server/responses.h"

namespace genericserver {

Awaitable<void> WriteStatus(ResponseWriter& out, const apimachinery::Status& status) {
  Response r;
  r.status = status.code;
  r.headers.Set("Content-Type", "application/json");
  if (status.details && status.details->retry_after_seconds > 0) {
    r.headers.Set("Retry-After", std::to_string(status.details->retry_after_seconds));
  }
  r.body = apimachinery::EncodeStatus(status);
  co_await out.Respond(std::move(r));
}

Awaitable<void> WriteJSON(ResponseWriter& out, int code, std::string body) {
  Response r;
  r.status = code;
  r.headers.Set("Content-Type", "application/json");
  r.body = std::move(body);
  co_await out.Respond(std::move(r));
}

Awaitable<void> WriteText(ResponseWriter& out, int code, std::string body) {
  Response r;
  r.status = code;
  r.headers.Set("Content-Type", "text/plain; charset=utf-8");
  r.headers.Set("X-Content-Type-Options", "nosniff");
  r.body = std::move(body);
  co_await out.Respond(std::move(r));
}

}  // namespace genericserver
