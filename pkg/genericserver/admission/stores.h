#pragma once
// The stores admission plugins read (service accounts, priority classes, namespaces, ...),
// by resource ("serviceaccounts", "priorityclasses.scheduling.k8s.io"): the plugins are made
// before the servers make their stores, which register here as they are made, all before
// the first request. Thread-safe.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/registry/store.h"

namespace admission {

class Stores {
 public:
  // Registers a store by its resource and by its kind (a later one of the same replaces it).
  void Add(std::shared_ptr<registry::Store> store);
  // The store of `resource` (plural, then "." and the group unless core), or null.
  std::shared_ptr<registry::Store> Get(std::string_view resource) const;
  // The store of a kind at an apiVersion ("v1", "group/version"), or null.
  std::shared_ptr<registry::Store> GetKind(std::string_view api_version,
                                           std::string_view kind) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<registry::Store>, std::less<>> stores_;
  std::map<std::string, std::shared_ptr<registry::Store>, std::less<>> kinds_;  // "gv/Kind"
};

// What plugins read, as upstream's plugins read their informers with a live read behind:
// the object from the watch cache, else from storage (`attempts` reads, 100 to 200 ms
// apart, before a NotFound is believed); NotFound is an error.
Awaitable<registry::Result<nlohmann::json>> Lookup(std::shared_ptr<registry::Store> store,
                                                   std::string ns, std::string name,
                                                   int attempts = 1);
// The objects of a namespace ("": all), from the watch cache.
Awaitable<registry::Result<std::vector<nlohmann::json>>> ListCached(
    std::shared_ptr<registry::Store> store, std::string ns);

}  // namespace admission
