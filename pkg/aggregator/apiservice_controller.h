#pragma once
// The APIService controller: keeps the APIServiceTable current from a watch of the stored
// APIServices, and their Available condition as upstream's local and remote availability
// controllers do: Local APIServices are always available; a remote one is checked (see
// available_check.h) when it changes, every 10 s while available, every 5 s while not,
// and at once when the proxy could not reach it.

#include <atomic>
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

  // The hook start-kube-aggregator-informers: starts the controller on a strand of its own
  // and returns. The controller lists the APIServices into the table (again every second
  // until it can; requests are routed from then on), then watches them and keeps checking
  // them until shutdown.
  genericserver::PostStartHookFunc Start();
  // Every stored APIService is in the table (apiservice-registration-controller).
  bool Registered() const { return registered_; }
  // The availability checks run (apiservice-status-{local,remote}-available-controller).
  bool Checking() const { return checking_; }
  // Every APIService of the first list was checked once, so that discovery and OpenAPI know
  // what its server serves (apiservice-discovery-controller).
  bool Discovered() const;

 private:
  Awaitable<void> Run();
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
  std::atomic<bool> registered_{false};
  std::atomic<bool> checking_{false};
  // The watch and the check loop run on one strand; the checks they start run there too.
  // mu_ guards what Enqueue (any thread) and the hooks read.
  mutable std::mutex mu_;
  std::set<std::string> first_checks_;  // of the first list, not checked yet
  std::set<std::string> queued_;
  std::set<std::string> in_flight_;
  std::map<std::string, transport::Clock::time_point> next_check_;
};

}  // namespace aggregator
