#include "pkg/genericserver/storage/transforming_kv.h"

#include <mutex>

#include "pkg/util/strings.h"

namespace storage {
namespace {

class TransformingWatch final : public KVWatch {
 public:
  TransformingWatch(std::shared_ptr<const TransformingKV> kv, std::unique_ptr<KVWatch> inner)
      : kv_(std::move(kv)), inner_(std::move(inner)) {}

  Awaitable<std::optional<Result<KVEvent>>> Next() override {
    auto next = co_await inner_->Next();
    if (!next || !*next) co_return next;
    KVEvent& event = **next;
    if (event.type == KVEvent::Type::kProgress) co_return next;
    if (event.kv.value) {
      if (auto r = kv_->FromStorage(event.kv); !r)
        co_return Result<KVEvent>(std::unexpected(r.error()));
    }
    if (auto r = kv_->FromStorage(event.prev); !r)
      co_return Result<KVEvent>(std::unexpected(r.error()));
    co_return next;
  }
  void Stop() override { inner_->Stop(); }
  bool RequestProgress() override { return inner_->RequestProgress(); }

 private:
  std::shared_ptr<const TransformingKV> kv_;
  std::unique_ptr<KVWatch> inner_;
};

}  // namespace

TransformingKV::TransformingKV(std::shared_ptr<KV> backend, std::string path_prefix)
    : backend_(std::move(backend)), prefix_(std::move(path_prefix)) {}

void TransformingKV::SetTransformer(const std::string& resource_prefix,
                                    value::TransformerPtr transformer) {
  std::unique_lock lock(mu_);
  transformers_[prefix_ + resource_prefix] = std::move(transformer);
}

value::TransformerPtr TransformingKV::For(std::string_view key) const {
  if (!key.starts_with(prefix_)) return nullptr;
  // A resource's prefix is one or two segments ("/secrets/", "/apps/deployments/"): try
  // the longer first.
  size_t first = key.find('/', prefix_.size() + 1);
  if (first == std::string_view::npos) return nullptr;
  size_t second = key.find('/', first + 1);
  std::shared_lock lock(mu_);
  if (second != std::string_view::npos) {
    if (auto it = transformers_.find(key.substr(0, second + 1)); it != transformers_.end()) {
      return it->second;
    }
  }
  if (auto it = transformers_.find(key.substr(0, first + 1)); it != transformers_.end()) {
    return it->second;
  }
  return nullptr;
}

Result<std::string> TransformingKV::ToStorage(const std::string& key, std::string value) const {
  auto transformer = For(key);
  if (!transformer) return value;
  auto stored = transformer->ToStorage(value, key);
  if (!stored) {
    return std::unexpected(
        InternalError("unable to transform key " + util::Quote(key) + ": " + stored.error()));
  }
  return std::move(*stored);
}

Result<void> TransformingKV::FromStorage(KeyValue& kv) const {
  auto transformer = For(kv.key);
  if (!transformer || !kv.value) return {};
  auto plain = transformer->FromStorage(*kv.value, kv.key);
  if (!plain) {
    return std::unexpected(
        InternalError("unable to transform key " + util::Quote(kv.key) + ": " + plain.error()));
  }
  kv.value = std::make_shared<const std::string>(std::move(plain->data));
  kv.stale = plain->stale;
  return {};
}

Result<void> TransformingKV::FromStorage(std::optional<KeyValue>& kv) const {
  if (!kv) return {};
  return FromStorage(*kv);
}

Result<void> TransformingKV::FromStorage(TxnResult& txn) const {
  if (auto r = FromStorage(txn.prev); !r) return r;
  return FromStorage(txn.current);
}

Awaitable<Result<RangeResult>> TransformingKV::Range(std::string key, RangeOptions options) {
  auto got = co_await backend_->Range(std::move(key), std::move(options));
  if (!got) co_return got;
  for (KeyValue& kv : got->kvs) {
    if (auto r = FromStorage(kv); !r) co_return std::unexpected(r.error());
  }
  co_return got;
}

Awaitable<Result<TxnResult>> TransformingKV::Create(std::string key, std::string value) {
  auto stored = ToStorage(key, std::move(value));
  if (!stored) co_return std::unexpected(stored.error());
  auto txn = co_await backend_->Create(std::move(key), std::move(*stored));
  if (!txn) co_return txn;
  if (auto r = FromStorage(*txn); !r) co_return std::unexpected(r.error());
  co_return txn;
}

Awaitable<Result<TxnResult>> TransformingKV::Update(std::string key, std::string value,
                                                    int64_t expected_revision) {
  auto stored = ToStorage(key, std::move(value));
  if (!stored) co_return std::unexpected(stored.error());
  auto txn = co_await backend_->Update(std::move(key), std::move(*stored), expected_revision);
  if (!txn) co_return txn;
  if (auto r = FromStorage(*txn); !r) co_return std::unexpected(r.error());
  co_return txn;
}

Awaitable<Result<TxnResult>> TransformingKV::Delete(std::string key, int64_t expected_revision) {
  auto txn = co_await backend_->Delete(std::move(key), expected_revision);
  if (!txn) co_return txn;
  if (auto r = FromStorage(*txn); !r) co_return std::unexpected(r.error());
  co_return txn;
}

Awaitable<Result<std::unique_ptr<KVWatch>>> TransformingKV::Watch(std::string key,
                                                                  KVWatchOptions options) {
  auto watch = co_await backend_->Watch(std::move(key), std::move(options));
  if (!watch) co_return watch;
  co_return std::unique_ptr<KVWatch>(
      std::make_unique<TransformingWatch>(shared_from_this(), std::move(*watch)));
}

Awaitable<Result<void>> TransformingKV::Compact(int64_t revision) {
  co_return co_await backend_->Compact(revision);
}

Awaitable<Result<KVStats>> TransformingKV::Stats() { co_return co_await backend_->Stats(); }

}  // namespace storage
