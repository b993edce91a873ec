#include "pkg/controller/bootstrap/token_cleaner.h"

#include <boost/asio/strand.hpp>
#include <nlohmann/json.hpp>

#include "pkg/clusterbootstrap/token_secret.h"
#include "pkg/controller/object.h"
#include "pkg/controller/worker.h"
#include "pkg/util/duration.h"
#include "pkg/util/log.h"

namespace controller::bootstrap {

using nlohmann::json;
using namespace clusterbootstrap;  // NOLINT(build/namespaces): the Secrets' helpers

namespace {

const client::GroupVersionResource kSecrets{"", "v1", "secrets"};

}  // namespace

std::expected<InitResult, std::string> StartTokenCleanerController(ControllerContext& ctx) {
  auto secrets = ctx.informers->ForResource(kSecrets);
  auto queue = workqueue::Queue::New(boost::asio::make_strand(ctx.io));
  auto api = ctx.client_for("token-cleaner");

  secrets->AddEventHandler(EnqueueObjects(queue, /*deletes=*/false, IsWatchedTokenSecret));

  std::weak_ptr<workqueue::Queue> weak_queue = queue;
  SyncFunc sync = [secrets, api, weak_queue](const std::string& key) -> Awaitable<SyncResult> {
    const auto start = std::chrono::steady_clock::now();
    client::ObjectPtr secret = secrets->Get(key);
    if (!secret) {
      KLOG_V(3) << "\"Secret has been deleted\" secret=\"" << key << "\"";
      co_return SyncResult();
    }
    if (secret->value("type", "") != kSecretTypeBootstrapToken) co_return SyncResult();
    const Expiration expiration = GetExpiration(*secret, util::MicroNow());
    if (expiration.expired) {
      KLOG_V(3) << "\"Deleting expired secret\" secret=\"" << key << "\"";
      json options = DeleteOptionsWithUID(Meta(*secret, "uid"));
      const std::string path =
          client::ResourcePath(kSecrets, Meta(*secret, "namespace"), Meta(*secret, "name"));
      auto deleted = co_await api->Delete(path, &options);
      // NotFound: deleted already; Conflict: the uid precondition failed (a new Secret).
      if (!deleted && !deleted.error().IsConflict() && !deleted.error().IsNotFound()) {
        KLOG_V(3) << "\"Error deleting secret\" err=\"" << deleted.error().String() << "\"";
      }
    } else if (expiration.remaining.count() > 0) {
      if (auto q = weak_queue.lock()) EnqueueAfter(q, key, RequeueDelay(expiration.remaining));
    }
    KLOG_V(4) << "\"Finished syncing secret\" secret=\"" << key << "\" elapsedTime=\""
              << util::FormatDuration(std::chrono::steady_clock::now() - start) << "\"";
    co_return SyncResult();
  };
  KLOG_INFO << "\"Starting token cleaner controller\"";
  RunWorkers(queue, 1, "token_cleaner", std::move(sync), {secrets});
  return InitResult{true};
}

}  // namespace controller::bootstrap
