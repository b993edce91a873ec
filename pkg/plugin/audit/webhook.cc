#include "pkg/plugin/audit/webhook.h"

#include <atomic>
#include <future>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include "pkg/client/kubeconfig.h"
#include "pkg/client/rest/client.h"
#include "pkg/genericserver/audit/metrics.h"
#include "pkg/util/log.h"

namespace audit {
namespace {

namespace net = boost::asio;

class Poster {
 public:
  Poster(std::shared_ptr<client::RestClient> client, std::shared_ptr<net::io_context> io,
         util::Duration initial_backoff)
      : client_(std::move(client)), io_(std::move(io)), initial_backoff_(initial_backoff) {}

  void Post(std::vector<EventPtr>& batch, const std::atomic<bool>& stopping) {
    const std::string body = EncodeEventList(batch);
    auto pause = initial_backoff_;
    std::string last;
    for (int attempt = 0; attempt < 5; ++attempt) {
      if (attempt > 0) {
        // Slept in steps so that a shutdown does not wait out the pause.
        const auto until = std::chrono::steady_clock::now() + pause;
        while (!stopping && std::chrono::steady_clock::now() < until) {
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        if (stopping) break;
        pause = std::chrono::duration_cast<util::Duration>(pause * 1.5);
      }
      auto answer = Exchange(body);
      if (answer && answer->status / 100 == 2) return;
      last = answer ? "the server answered " + std::to_string(answer->status) + ": " +
                          answer->body.substr(0, 200)
                    : answer.error().String();
    }
    CountErrors("webhook", batch.size());
    KLOG_ERROR << "Error in audit plugin 'webhook' affecting " << batch.size()
               << " audit events: " << last;
  }

 private:
  client::Result<client::RawResponse> Exchange(const std::string& body) {
    auto future =
        net::co_spawn(*io_, client_->Do("POST", "", body, "application/json", "application/json"),
                      net::use_future);
    io_->restart();
    io_->run();
    return future.get();
  }

  std::shared_ptr<client::RestClient> client_;
  std::shared_ptr<net::io_context> io_;
  util::Duration initial_backoff_;
};

}  // namespace

std::expected<BackendPtr, std::string> NewWebhookBackend(const WebhookOptions& options) {
  auto config = client::LoadKubeconfig(options.config_file);
  if (!config) return std::unexpected("--audit-webhook-config-file: " + config.error());
  // Upstream's batch throttle: 10 batches a second, bursts of 15.
  config->qps = 10;
  config->burst = 15;
  auto io = std::make_shared<net::io_context>();
  auto rest = client::RestClient::New(*config, "kube-apiserver-audit-webhook", io->get_executor());
  if (!rest) return std::unexpected("--audit-webhook-config-file: " + rest.error());
  auto poster = std::make_shared<Poster>(*rest, io, options.initial_backoff);
  return std::make_shared<BufferedBackend>(
      "webhook", options.buffer,
      [poster](std::vector<EventPtr>& batch, const std::atomic<bool>& stopping) {
        poster->Post(batch, stopping);
      });
}

}  // namespace audit
