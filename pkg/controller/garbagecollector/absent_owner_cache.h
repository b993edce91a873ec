#pragma once
// Owners the API server said do not exist (not found, or another uid under that name), so
// that their other dependents need not ask again: a least-recently-used set of identities
// of bounded size (upstream's ReferenceCache, 500 entries). Cluster-scoped owners are kept
// without a namespace, namespaced ones with the namespace they were looked up in.
//
// Threads: none of its own; the garbage collector keeps it on its strand.

#include <cstddef>
#include <list>
#include <map>
#include <string>

#include "pkg/controller/garbagecollector/object_meta.h"

namespace controller::garbagecollector {

class AbsentOwnerCache {
 public:
  explicit AbsentOwnerCache(size_t capacity = 500) : capacity_(capacity) {}
  void Add(const ObjectRef& ref);
  // Whether `ref` is recorded; a hit makes it the most recently used.
  bool Has(const ObjectRef& ref);
  size_t size() const { return entries_.size(); }

 private:
  static std::string Key(const ObjectRef& ref);
  size_t capacity_;
  std::list<std::string> order_;  // most recently used first
  std::map<std::string, std::list<std::string>::iterator> entries_;
};

}  // namespace controller::garbagecollector
