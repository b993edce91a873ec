#include "pkg/plugin/webhook/webhook_client.h"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "pkg/client/rest/client.h"

namespace webhook {

namespace net = boost::asio;
using nlohmann::json;

std::expected<std::shared_ptr<WebhookClient>, std::string> WebhookClient::New(
    const std::string& kubeconfig_file, std::string user_agent, net::any_io_executor executor) {
  auto config = client::LoadKubeconfig(kubeconfig_file);
  if (!config) return std::unexpected(config.error());
  // Reviews are not throttled on this side: the server asks once per request it serves.
  config->qps = 0;
  auto rest = client::RestClient::New(*config, std::move(user_agent), std::move(executor));
  if (!rest) return std::unexpected(rest.error());
  auto c = std::shared_ptr<WebhookClient>(new WebhookClient());
  c->client_ = *rest;
  return c;
}

Awaitable<std::expected<json, std::string>> WebhookClient::Post(const json& review) const {
  const std::string body = review.dump();
  auto pause = std::chrono::milliseconds(500);
  std::string last;
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (attempt > 0) {
      net::steady_timer timer(co_await net::this_coro::executor, pause);
      co_await timer.async_wait(net::use_awaitable);
      pause = pause * 3 / 2;
    }
    auto answer = co_await client_->Do("POST", "", body, "application/json", "application/json",
                                       std::chrono::seconds(30));
    if (!answer) {
      last = answer.error().String();
      continue;
    }
    if (answer->status / 100 == 2) {
      json parsed = json::parse(answer->body, nullptr, false);
      if (parsed.is_object()) co_return parsed;
      co_return std::unexpected("the webhook answered something that is not a JSON object");
    }
    last = client::ErrorFromResponse(answer->status, answer->body).String();
    // Only what may pass is tried again.
    if (answer->status != 429 && answer->status < 500) break;
  }
  co_return std::unexpected(last);
}

}  // namespace webhook
