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

#include "pkg/genericserver/registry/store.h"

namespace admission {

class Stores {
 public:
  void Add(std::shared_ptr<registry::Store> store);
  // The store of `resource` (plural, then "." and the group unless core), or null.
  std::shared_ptr<registry::Store> Get(std::string_view resource) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<registry::Store>, std::less<>> stores_;
};

}  // namespace admission
