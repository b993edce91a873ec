#include "pkg/genericserver/storage/converting.h"

#include <nlohmann/json.hpp>

namespace storage {
namespace {

using nlohmann::json;

class Converter {
 public:
  explicit Converter(Conversion c) : c_(std::move(c)), identity_(std::make_shared<const char>(0)) {}

  // The served forms of stored objects (same keys and revisions), each version converted
  // once and kept with it.
  Awaitable<Result<std::vector<ObjectPtr>>> Out(std::vector<ObjectPtr> stored) const {
    std::vector<ObjectPtr> out(stored.size());
    std::vector<size_t> todo;
    std::vector<json> parsed;
    for (size_t i = 0; i < stored.size(); ++i) {
      if (!stored[i]) continue;
      if (auto cached = std::atomic_load(&stored[i]->converted);
          cached && cached->by == identity_.get()) {
        out[i] = cached->object;
        continue;
      }
      json object = json::parse(*stored[i]->json, nullptr, false);
      if (object.is_discarded()) {
        out[i] = stored[i];
        continue;
      }
      todo.push_back(i);
      parsed.push_back(std::move(object));
    }
    if (todo.empty()) co_return out;
    std::vector<json> converted;
    if (c_.batch) {
      auto done = co_await c_.batch(std::move(parsed), false);
      if (!done) co_return std::unexpected(CallerError(done.error()));
      converted = std::move(*done);
    } else {
      for (const json& object : parsed) converted.push_back(c_.from_storage(object));
    }
    for (size_t k = 0; k < todo.size() && k < converted.size(); ++k) {
      const ObjectPtr& from = stored[todo[k]];
      auto made = std::make_shared<Object>(*from);
      made->json = std::make_shared<const std::string>(converted[k].dump());
      made->protobuf = nullptr;  // the stored form's encoding is not this one's
      made->converted = nullptr;
      auto entry = std::make_shared<Object::Converted>();
      entry->by = identity_.get();
      entry->object = made;
      std::atomic_store(&from->converted, std::shared_ptr<const Object::Converted>(entry));
      out[todo[k]] = std::move(made);
    }
    co_return out;
  }

  Awaitable<Result<ObjectPtr>> Out(ObjectPtr stored) const {
    std::vector<ObjectPtr> one = {std::move(stored)};
    auto converted = co_await Out(std::move(one));
    if (!converted) co_return std::unexpected(converted.error());
    co_return converted->front();
  }

  // The stored form of a served object's JSON.
  Awaitable<Result<std::string>> In(std::string served) const {
    json parsed = json::parse(served, nullptr, false);
    if (parsed.is_discarded()) co_return served;
    if (!c_.batch) co_return c_.to_storage(parsed).dump();
    std::vector<json> one = {std::move(parsed)};
    auto done = co_await c_.batch(std::move(one), true);
    if (!done) co_return std::unexpected(CallerError(done.error()));
    if (done->empty()) co_return std::unexpected(InternalError("the conversion returned nothing"));
    co_return done->front().dump();
  }

  // Selectors see the served form (converted without waiting: see Conversion::batch).
  SelectionPredicate Predicate(SelectionPredicate served) const {
    if (served.Everything()) return served;
    auto from_storage = c_.from_storage;
    return {[from_storage, served](const Object& stored) {
      json parsed = json::parse(*stored.json, nullptr, false);
      if (parsed.is_discarded()) return served.Matches(stored);
      Object view = stored;
      view.json = std::make_shared<const std::string>(from_storage(parsed).dump());
      view.protobuf = nullptr;
      view.converted = nullptr;
      return served.Matches(view);
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
      auto converted = co_await converter_.Out(event->object);
      if (!converted) {
        WatchEvent failed;
        failed.type = WatchEvent::Type::kError;
        failed.error = converted.error();
        co_return failed;
      }
      event->object = std::move(*converted);
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
    auto stored = co_await c_.In(std::move(json));
    if (!stored) co_return std::unexpected(stored.error());
    auto r = co_await stored_->Create(std::move(key), std::move(*stored));
    if (!r) co_return r;
    co_return co_await c_.Out(std::move(*r));
  }

  Awaitable<Result<ObjectPtr>> Delete(std::string key, Preconditions preconditions,
                                      ValidateDeletion validate,
                                      ObjectPtr cached_existing) override {
    ValidateDeletion inner_validate;
    if (validate) {
      Converter c = c_;
      inner_validate =
          [c, validate](const ObjectPtr& current) -> Awaitable<std::expected<void, StorageError>> {
        auto served = co_await c.Out(current);
        if (!served) co_return std::unexpected(served.error());
        co_return co_await validate(*served);
      };
    }
    // A cached object in served form cannot stand for the stored one: read again.
    auto r = co_await stored_->Delete(std::move(key), std::move(preconditions),
                                      std::move(inner_validate), nullptr);
    (void)cached_existing;
    if (!r) co_return r;
    co_return co_await c_.Out(std::move(*r));
  }

  Awaitable<Result<ObjectPtr>> Get(std::string key, GetOptions options) override {
    auto r = co_await stored_->Get(std::move(key), std::move(options));
    if (!r) co_return r;
    co_return co_await c_.Out(std::move(*r));
  }

  Awaitable<Result<ListResult>> GetList(std::string key_prefix, ListOptions options) override {
    options.predicate = c_.Predicate(std::move(options.predicate));
    auto r = co_await stored_->GetList(std::move(key_prefix), std::move(options));
    if (!r) co_return r;
    auto items = co_await c_.Out(std::move(r->items));
    if (!items) co_return std::unexpected(items.error());
    r->items = std::move(*items);
    co_return r;
  }

  Awaitable<Result<ObjectPtr>> GuaranteedUpdate(std::string key, Preconditions preconditions,
                                                bool ignore_not_found, UpdateFunc try_update,
                                                ObjectPtr cached_existing) override {
    Converter c = c_;
    UpdateFunc converted =
        [c, try_update](
            const ObjectPtr& current) -> Awaitable<std::expected<std::string, StorageError>> {
      ObjectPtr served_current = current;
      if (current) {
        auto out = co_await c.Out(current);
        if (!out) co_return std::unexpected(out.error());
        served_current = std::move(*out);
      }
      auto served = co_await try_update(served_current);
      if (!served) co_return served;
      co_return co_await c.In(std::move(*served));
    };
    (void)cached_existing;
    auto r = co_await stored_->GuaranteedUpdate(std::move(key), std::move(preconditions),
                                                ignore_not_found, std::move(converted), nullptr);
    if (!r) co_return r;
    co_return co_await c_.Out(std::move(*r));
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
