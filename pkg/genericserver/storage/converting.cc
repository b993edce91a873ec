#include "pkg/genericserver/storage/converting.h"

#include <nlohmann/json.hpp>

namespace storage {
namespace {

using nlohmann::json;

class Converter {
 public:
  explicit Converter(Conversion c) : c_(std::move(c)), identity_(std::make_shared<const char>(0)) {}

  // The served form of a stored object (same key and revision), made once per version.
  ObjectPtr Out(const ObjectPtr& stored) const {
    if (!stored) return stored;
    if (auto cached = std::atomic_load(&stored->converted);
        cached && cached->by == identity_.get()) {
      return cached->object;
    }
    json parsed = json::parse(*stored->json, nullptr, false);
    if (parsed.is_discarded()) return stored;
    auto out = std::make_shared<Object>(*stored);
    out->json = std::make_shared<const std::string>(c_.from_storage(parsed).dump());
    out->protobuf = nullptr;  // the stored form's encoding is not this one's
    out->converted = nullptr;
    auto entry = std::make_shared<Object::Converted>();
    entry->by = identity_.get();
    entry->object = out;
    std::atomic_store(&stored->converted, std::shared_ptr<const Object::Converted>(entry));
    return out;
  }
  std::string In(const std::string& served) const {
    json parsed = json::parse(served, nullptr, false);
    if (parsed.is_discarded()) return served;
    return c_.to_storage(parsed).dump();
  }
  SelectionPredicate Predicate(SelectionPredicate served) const {
    if (served.Everything()) return served;
    auto self = *this;
    return {[self, served](const Object& stored) {
      ObjectPtr out = self.Out(std::make_shared<Object>(stored));
      return served.Matches(*out);
    }};
  }

 private:
  Conversion c_;
  std::shared_ptr<const char> identity_;  // shared by copies: they convert alike
};

class ConvertingWatcher final : public Watcher {
 public:
  ConvertingWatcher(WatcherPtr inner, Converter converter)
      : inner_(std::move(inner)), converter_(std::move(converter)) {}
  Awaitable<std::optional<WatchEvent>> Next() override {
    auto event = co_await inner_->Next();
    if (event && event->object && event->type != WatchEvent::Type::kBookmark) {
      event->object = converter_.Out(event->object);
    }
    co_return event;
  }
  void Stop() override { inner_->Stop(); }
  bool RequestProgress() override { return inner_->RequestProgress(); }

 private:
  WatcherPtr inner_;
  Converter converter_;
};

class Converting final : public Interface {
 public:
  Converting(std::shared_ptr<Interface> stored, Conversion conversion)
      : stored_(std::move(stored)), c_(std::move(conversion)) {}

  Awaitable<Result<ObjectPtr>> Create(std::string key, std::string json) override {
    auto r = co_await stored_->Create(std::move(key), c_.In(json));
    if (!r) co_return r;
    co_return c_.Out(*r);
  }

  Awaitable<Result<ObjectPtr>> Delete(std::string key, Preconditions preconditions,
                                      ValidateDeletion validate,
                                      ObjectPtr cached_existing) override {
    ValidateDeletion inner_validate;
    if (validate) {
      Converter c = c_;
      inner_validate =
          [c, validate](const ObjectPtr& current) -> Awaitable<std::expected<void, StorageError>> {
        co_return co_await validate(c.Out(current));
      };
    }
    // A cached object in served form cannot stand for the stored one: read again.
    auto r = co_await stored_->Delete(std::move(key), std::move(preconditions),
                                      std::move(inner_validate), nullptr);
    (void)cached_existing;
    if (!r) co_return r;
    co_return c_.Out(*r);
  }

  Awaitable<Result<ObjectPtr>> Get(std::string key, GetOptions options) override {
    auto r = co_await stored_->Get(std::move(key), std::move(options));
    if (!r) co_return r;
    co_return c_.Out(*r);
  }

  Awaitable<Result<ListResult>> GetList(std::string key_prefix, ListOptions options) override {
    options.predicate = c_.Predicate(std::move(options.predicate));
    auto r = co_await stored_->GetList(std::move(key_prefix), std::move(options));
    if (!r) co_return r;
    for (ObjectPtr& item : r->items) item = c_.Out(item);
    co_return r;
  }

  Awaitable<Result<ObjectPtr>> GuaranteedUpdate(std::string key, Preconditions preconditions,
                                                bool ignore_not_found, UpdateFunc try_update,
                                                ObjectPtr cached_existing) override {
    Converter c = c_;
    UpdateFunc converted =
        [c, try_update](
            const ObjectPtr& current) -> Awaitable<std::expected<std::string, StorageError>> {
      auto served = co_await try_update(c.Out(current));
      if (!served) co_return served;
      co_return c.In(*served);
    };
    (void)cached_existing;
    auto r = co_await stored_->GuaranteedUpdate(std::move(key), std::move(preconditions),
                                                ignore_not_found, std::move(converted), nullptr);
    if (!r) co_return r;
    co_return c_.Out(*r);
  }

  Awaitable<Result<WatcherPtr>> Watch(std::string key, WatchOptions options) override {
    options.predicate = c_.Predicate(std::move(options.predicate));
    auto r = co_await stored_->Watch(std::move(key), std::move(options));
    if (!r) co_return r;
    WatcherPtr wrapped = std::make_unique<ConvertingWatcher>(std::move(*r), c_);
    co_return wrapped;
  }

  Awaitable<Result<int64_t>> CurrentRevision() override { return stored_->CurrentRevision(); }
  Awaitable<Result<void>> Compact(int64_t revision) override { return stored_->Compact(revision); }
  Awaitable<Result<Stats>> GetStats(std::string key_prefix) override {
    return stored_->GetStats(std::move(key_prefix));
  }

 private:
  std::shared_ptr<Interface> stored_;
  Converter c_;
};

}  // namespace

std::shared_ptr<Interface> NewConverting(std::shared_ptr<Interface> stored, Conversion conversion) {
  return std::make_shared<Converting>(std::move(stored), std::move(conversion));
}

}  // namespace storage
