#pragma once
// Serialized documents by index key ("api/v1", "apis/G/V", "version", ...), each with its
// content hash, rebuilt only when its inputs (compared by identity) changed. Thread-safe;
// documents are built outside the lock.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace endpoints::openapi {

struct CachedDocument {
  std::vector<std::shared_ptr<const void>> inputs;  // held, so their addresses stay theirs
  std::string body;
  std::string hash;  // genericserver::ContentHash(body)
  std::chrono::system_clock::time_point modified;
};

class DocumentCache {
 public:
  // The document of `key`: the cached one if it was built from the same `inputs` (same
  // objects, same order), else a new one from build() (which returns the body).
  std::shared_ptr<const CachedDocument> Get(const std::string& key,
                                            std::vector<std::shared_ptr<const void>> inputs,
                                            const std::function<std::string()>& build);
  // Forgets every document whose key is not in `keys`.
  void Retain(const std::set<std::string>& keys);
  // How many documents were built so far (for tests).
  size_t Builds() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const CachedDocument>> documents_;
  size_t builds_ = 0;
};

}  // namespace endpoints::openapi
