#pragma once
// The APIService controller: keeps the APIServiceTable current from a watch of the stored
// APIServices, and their Available condition as upstream's local and remote availability
// controllers do: Local APIServices are always available; a remote one is checked (see
// available_check.h) when it changes, every 10 s while available, every 5 s while not,
// and at once when the proxy could not reach it.

#include <memory>
#include <set>
#include <string>

#include "pkg/aggregator/apiservice_table.h"
#include "pkg/aggregator/proxy.h"
#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/server/hooks.h"
#include "pkg/genericserver/server/lifecycle.h"
#include "pkg/genericserver/storage/factory.h"

namespace aggregator {

class APIServiceController : public std::enable_shared_from_this<APIServiceController> {
 public:
  // Everything must outlive the controller's hooks (the server).
  APIServiceController(std::shared_ptr<registry::Store> apiservices, APIServiceTable& table,
                       storage::StorageFactory& storage, ServiceResolver resolve,
                       std::shared_ptr<const transport::TLSClient> check_tls,
                       genericserver::Lifecycle& lifecycle);

  // Has the APIService checked again soon. Thread-safe.
  void Enqueue(const std::string& name);

  // Lists the APIServices into the table before it returns (requests are routed from then
  // on), then watches them and keeps checking in the background until shutdown.
  genericserver::PostStartHookFunc Hook();

 private:
  Awaitable<std::expected<std::string, std::string>> Sync();
  Awaitable<void> Watch(std::string revision);
  Awaitable<void> CheckLoop();
  Awaitable<void> Check(APIServiceInfoPtr info);
  Awaitable<void> Record(const APIServiceInfo& info, std::string status, std::string reason,
                         std::string message);

  std::shared_ptr<registry::Store> apiservices_;
  APIServiceTable& table_;
  storage::StorageFactory& storage_;
  ServiceResolver resolve_;
  std::shared_ptr<const transport::TLSClient> check_tls_;
  genericserver::Lifecycle& lifecycle_;
  std::mutex mu_;
  std::set<std::string> queued_;
  std::set<std::string> in_flight_;
  std::map<std::string, transport::Clock::time_point> next_check_;
};

}  // namespace aggregator
