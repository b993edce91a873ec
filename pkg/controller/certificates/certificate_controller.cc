#include "pkg/controller/certificates/certificate_controller.h"

#include <memory>
#include <optional>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/strand.hpp>
#include <nlohmann/json.hpp>

#include "pkg/client/workqueue/queue.h"
#include "pkg/controller/certificates/csr.h"
#include "pkg/controller/worker.h"
#include "pkg/util/log.h"

namespace controller::certificates {

namespace net = boost::asio;
using nlohmann::json;

namespace {

workqueue::RateLimiterPtr CertificateRateLimiter() {
  std::vector<workqueue::RateLimiterPtr> limiters;
  limiters.push_back(workqueue::ItemExponentialFailureRateLimiter(std::chrono::milliseconds(200),
                                                                  std::chrono::seconds(1000)));
  limiters.push_back(workqueue::BucketRateLimiter(10, 100));
  return workqueue::MaxOfRateLimiter(std::move(limiters));
}

// One key: the cached request, unless gone or issued, through the handler.
Awaitable<HandleResult> Sync(std::shared_ptr<client::SharedInformer> informer,
                             const CSRHandler& handler, const std::string& key) {
  client::ObjectPtr cached = informer->Get(key);
  if (!cached) {
    KLOG_V(3) << "\"csr has been deleted\" csr=\"" << key << "\"";
    co_return HandleResult();
  }
  if (!IssuedCertificate(*cached).empty()) co_return HandleResult();
  json copy = *cached;
  co_return co_await handler(std::move(copy));
}

Awaitable<void> Worker(std::shared_ptr<workqueue::Queue> queue,
                       std::shared_ptr<client::SharedInformer> informer, CSRHandler handler) {
  while (true) {
    std::optional<std::string> key = co_await queue->Get();
    if (!key) co_return;
    HandleResult result = co_await Sync(informer, handler, *key);
    if (result) {
      queue->Forget(*key);
    } else {
      queue->AddRateLimited(*key);
      if (result.error().ignorable) {
        KLOG_V(4) << "\"Sync certificate request failed\" csr=\"" << *key << "\" err=\""
                  << result.error().message << "\"";
      } else {
        KLOG_ERROR << "Sync " << *key << " failed with : " << result.error().message;
      }
    }
    queue->Done(*key);
  }
}

Awaitable<void> Run(std::shared_ptr<workqueue::Queue> queue,
                    std::shared_ptr<client::SharedInformer> informer, CSRHandler handler,
                    std::string name, int workers) {
  KLOG_INFO << "\"Starting certificate controller\" name=\"" << name << "\"";
  KLOG_INFO << "Waiting for caches to sync for certificate-" << name;
  std::vector<std::shared_ptr<client::SharedInformer>> wait_for = {informer};
  co_await client::WaitForCacheSync(wait_for);
  KLOG_INFO << "Caches are synced for certificate-" << name;
  for (int i = 0; i < workers; ++i) {
    net::co_spawn(queue->strand(), Worker(queue, informer, handler), net::detached);
  }
}

}  // namespace

void StartCertificateController(ControllerContext& ctx, std::string name, CSRHandler handler,
                                int workers) {
  auto informer = ctx.informers->ForResource(kCSRs);
  auto queue = workqueue::Queue::New(net::make_strand(ctx.io), CertificateRateLimiter());
  informer->AddEventHandler(EnqueueObjects(queue, /*deletes=*/true));
  net::co_spawn(queue->strand(), Run(queue, informer, std::move(handler), std::move(name), workers),
                net::detached);
}

}  // namespace controller::certificates
