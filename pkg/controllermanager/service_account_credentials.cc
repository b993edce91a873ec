#include "pkg/controllermanager/service_account_credentials.h"

#include <mutex>

#include <nlohmann/json.hpp>

#include "pkg/client/rest/token_source.h"
#include "pkg/util/log.h"

namespace controllermanager {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr char kNamespace[] = "kube-system";
constexpr int64_t kExpirationSeconds = 3600;

class ServiceAccountTokens final : public client::TokenSource,
                                   public std::enable_shared_from_this<ServiceAccountTokens> {
 public:
  ServiceAccountTokens(std::shared_ptr<client::RestClient> root, std::string name)
      : root_(std::move(root)), name_(std::move(name)) {}

  Awaitable<std::expected<std::string, std::string>> Token() override {
    {
      std::lock_guard lock(mu_);
      if (!token_.empty() && Clock::now() < renew_at_) co_return token_;
    }
    auto self = shared_from_this();
    const std::string account =
        "/api/v1/namespaces/" + std::string(kNamespace) + "/serviceaccounts/" + self->name_;
    auto got = co_await self->root_->Get(account);
    if (!got && got.error().IsNotFound()) {
      const json sa = {{"apiVersion", "v1"},
                       {"kind", "ServiceAccount"},
                       {"metadata", {{"name", self->name_}, {"namespace", kNamespace}}}};
      auto made = co_await self->root_->Post(
          "/api/v1/namespaces/" + std::string(kNamespace) + "/serviceaccounts", sa);
      if (!made && !made.error().IsAlreadyExists()) co_return std::unexpected(made.error().message);
    } else if (!got) {
      co_return std::unexpected(got.error().message);
    }
    const json request = {{"apiVersion", "authentication.k8s.io/v1"},
                          {"kind", "TokenRequest"},
                          {"spec", {{"expirationSeconds", kExpirationSeconds}}}};
    auto issued = co_await self->root_->Post(account + "/token", request);
    if (!issued) co_return std::unexpected(issued.error().message);
    const json& status = issued->value("status", json::object());
    if (!status.is_object() || !status.contains("token") || !status["token"].is_string()) {
      co_return std::unexpected("the TokenRequest for " + self->name_ + " returned no token");
    }
    std::lock_guard lock(self->mu_);
    self->token_ = status["token"].get<std::string>();
    self->renew_at_ = Clock::now() + std::chrono::seconds(kExpirationSeconds * 8 / 10);
    KLOG_V(2) << "got a token for service account " << kNamespace << "/" << self->name_;
    co_return self->token_;
  }

 private:
  std::shared_ptr<client::RestClient> root_;
  std::string name_;
  std::mutex mu_;  // guards token_ and renew_at_
  std::string token_;
  Clock::time_point renew_at_{};
};

}  // namespace

std::expected<std::shared_ptr<client::RestClient>, std::string> ServiceAccountClient(
    std::shared_ptr<client::RestClient> root, const std::string& controller,
    boost::asio::any_io_executor io) {
  client::RestConfig config = root->config();
  config.cert_pem.clear();
  config.key_pem.clear();
  config.bearer_token.clear();
  config.token_source = std::make_shared<ServiceAccountTokens>(root, controller);
  return client::RestClient::New(config, "kube-controller-manager/" + controller, std::move(io));
}

}  // namespace controllermanager
