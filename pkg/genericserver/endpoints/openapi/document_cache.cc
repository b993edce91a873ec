#include "pkg/genericserver/endpoints/openapi/document_cache.h"

#include <algorithm>

#include "pkg/genericserver/server/cacheable.h"

namespace endpoints::openapi {
namespace {

bool SameInputs(const std::vector<std::shared_ptr<const void>>& a,
                const std::vector<std::shared_ptr<const void>>& b) {
  return std::ranges::equal(a, b, [](const auto& x, const auto& y) { return x.get() == y.get(); });
}

}  // namespace

std::shared_ptr<const CachedDocument> DocumentCache::Get(
    const std::string& key, std::vector<std::shared_ptr<const void>> inputs,
    const std::function<std::string()>& build) {
  {
    std::lock_guard lock(mu_);
    auto it = documents_.find(key);
    if (it != documents_.end() && SameInputs(it->second->inputs, inputs)) return it->second;
  }
  auto document = std::make_shared<CachedDocument>();
  document->inputs = std::move(inputs);
  document->body = build();
  document->hash = genericserver::ContentHash(document->body);
  document->modified = std::chrono::system_clock::now();
  std::lock_guard lock(mu_);
  ++builds_;
  auto& slot = documents_[key];
  // Another request may have built the same document meanwhile: keep one, so that both
  // answer the same modification time.
  if (slot && SameInputs(slot->inputs, document->inputs) && slot->hash == document->hash)
    return slot;
  slot = document;
  return slot;
}

void DocumentCache::Retain(const std::set<std::string>& keys) {
  std::lock_guard lock(mu_);
  std::erase_if(documents_, [&](const auto& entry) { return !keys.contains(entry.first); });
}

size_t DocumentCache::Builds() const {
  std::lock_guard lock(mu_);
  return builds_;
}

}  // namespace endpoints::openapi
