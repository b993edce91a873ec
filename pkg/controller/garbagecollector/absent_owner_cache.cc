#include "pkg/controller/garbagecollector/absent_owner_cache.h"

namespace controller::garbagecollector {

std::string AbsentOwnerCache::Key(const ObjectRef& ref) {
  // Fields cannot hold NUL, so it separates them unambiguously.
  std::string key = ref.api_version;
  for (const std::string* part : {&ref.kind, &ref.namespace_name, &ref.name, &ref.uid}) {
    key += '\0';
    key += *part;
  }
  return key;
}

void AbsentOwnerCache::Add(const ObjectRef& ref) {
  std::string key = Key(ref);
  if (auto it = entries_.find(key); it != entries_.end()) {
    order_.splice(order_.begin(), order_, it->second);
    return;
  }
  order_.push_front(key);
  entries_.emplace(std::move(key), order_.begin());
  while (entries_.size() > capacity_) {
    entries_.erase(order_.back());
    order_.pop_back();
  }
}

bool AbsentOwnerCache::Has(const ObjectRef& ref) {
  auto it = entries_.find(Key(ref));
  if (it == entries_.end()) return false;
  order_.splice(order_.begin(), order_, it->second);
  return true;
}

}  // namespace controller::garbagecollector
