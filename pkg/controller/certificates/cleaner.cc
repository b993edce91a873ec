#include "pkg/controller/certificates/cleaner.h"

#include <memory>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "pkg/controller/certificates/csr.h"
#include "pkg/pki/pki.h"
#include "pkg/util/log.h"
#include "pkg/util/strings.h"
#include "pkg/util/timestamp.h"

namespace controller::certificates {

namespace net = boost::asio;
using nlohmann::json;
using SystemTime = std::chrono::system_clock::time_point;

namespace {

// Upstream's isOlderThan: a timestamp that is set and lies more than d before now.
bool OlderThan(const json& object, const char* field, std::chrono::hours d, SystemTime now) {
  if (!object.is_object()) return false;
  auto it = object.find(field);
  if (it == object.end() || !it->is_string()) return false;
  auto t = util::ParseTime(it->get<std::string>());
  return t && *t - now < -std::chrono::duration_cast<SystemTime::duration>(d);
}

const json& Conditions(const json& csr) {
  static const json kEmpty = json::array();
  auto status = csr.find("status");
  if (status == csr.end() || !status->is_object()) return kEmpty;
  auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return kEmpty;
  return *conditions;
}

std::string Type(const json& condition) {
  return condition.is_object() ? condition.value("type", "") : "";
}

bool Expired(const json& csr, SystemTime now) {
  const std::string pem = IssuedCertificate(csr);
  if (pem.empty()) return false;
  auto info = pki::ParseCertificate(pem);
  return info && now > info->not_after;
}

}  // namespace

std::optional<std::string> CleanReason(const json& csr, SystemTime now) {
  const std::string csr_kv = " csr=" + util::Quote(Name(csr));
  const bool issued = !IssuedCertificate(csr).empty();
  const json& conditions = Conditions(csr);
  for (const json& c : conditions) {
    if (Type(c) == kApproved && issued &&
        OlderThan(c, "lastUpdateTime", kApprovedExpiration, now)) {
      return "\"Cleaning CSR as it is more than approvedExpiration duration old and approved.\"" +
             csr_kv + " approvedExpiration=\"1h0m0s\"";
    }
  }
  for (const json& c : conditions) {
    if (Type(c) == kDenied && OlderThan(c, "lastUpdateTime", kDeniedExpiration, now)) {
      return "\"Cleaning CSR as it is more than deniedExpiration duration old and denied.\"" +
             csr_kv + " deniedExpiration=\"1h0m0s\"";
    }
  }
  for (const json& c : conditions) {
    if (Type(c) == kFailed && OlderThan(c, "lastUpdateTime", kDeniedExpiration, now)) {
      return "\"Cleaning CSR as it is more than deniedExpiration duration old and failed.\"" +
             csr_kv + " deniedExpiration=\"1h0m0s\"";
    }
  }
  if (conditions.empty() && OlderThan(csr.value("metadata", json::object()), "creationTimestamp",
                                      kPendingExpiration, now)) {
    return "\"Cleaning CSR as it is more than pendingExpiration duration old and unhandled.\"" +
           csr_kv + " pendingExpiration=\"24h0m0s\"";
  }
  for (const json& c : conditions) {
    if (Type(c) == kApproved && issued && Expired(csr, now)) {
      return "\"Cleaning CSR as the associated certificate is expired.\"" + csr_kv;
    }
  }
  return std::nullopt;
}

namespace {

Awaitable<void> CleanOnce(std::shared_ptr<client::SharedInformer> informer,
                          std::shared_ptr<client::RestClient> api) {
  for (const client::ObjectPtr& csr : informer->List()) {
    std::optional<std::string> reason = CleanReason(*csr, std::chrono::system_clock::now());
    if (!reason) continue;
    KLOG_INFO << *reason;
    const std::string name = Name(*csr);
    auto deleted = co_await api->Delete(client::ResourcePath(kCSRs, "", name));
    if (!deleted && !deleted.error().IsNotFound()) {
      KLOG_ERROR << "\"Error while attempting to clean CSR\" err=\"unable to delete CSR \\\""
                 << name << "\\\": " << deleted.error().String() << "\" csr=" << util::Quote(name);
    }
  }
}

Awaitable<void> RunCleaner(std::shared_ptr<client::SharedInformer> informer,
                           std::shared_ptr<client::RestClient> api) {
  KLOG_INFO << "\"Starting CSR cleaner controller\"";
  std::vector<std::shared_ptr<client::SharedInformer>> wait_for = {informer};
  co_await client::WaitForCacheSync(wait_for);
  net::steady_timer timer(co_await net::this_coro::executor);
  while (true) {
    co_await CleanOnce(informer, api);
    timer.expires_after(kCleanerPollingInterval);
    co_await timer.async_wait(net::use_awaitable);
  }
}

}  // namespace

std::expected<InitResult, std::string> StartCSRCleanerController(ControllerContext& ctx) {
  auto informer = ctx.informers->ForResource(kCSRs);
  auto api = ctx.client_for("certificate-controller");
  net::co_spawn(net::make_strand(ctx.io), RunCleaner(std::move(informer), std::move(api)),
                net::detached);
  return InitResult{true};
}

}  // namespace controller::certificates
