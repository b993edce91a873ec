// The etcd backend: requests and answers of the v3 JSON gateway, and watch streams.
#include "pkg/genericserver/storage/etcd3/etcd_kv.h"

#include <algorithm>
#include <charconv>
#include <deque>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "pkg/genericserver/storage/completion.h"
#include "pkg/util/base64.h"
#include "pkg/util/log.h"

namespace storage {

using etcd3::HttpError;
using etcd3::Retry;
using etcd3::StreamCallbacks;
using json = nlohmann::json;

namespace {

// Events a watcher may fall behind by before it is cut off (as WatchQueue::kCapacity).
constexpr size_t kWatchCapacity = 100000;

// A watch's events, from the stream's thread to one consumer coroutine at a time. Unlike
// AsyncQueue it keeps nothing of the consumer's executor between waits, so successive
// Next() calls may come from different io_contexts. A push past kWatchCapacity closes the
// queue and drops what it holds: a consumer that cannot keep up is cut off.
class EventQueue : public std::enable_shared_from_this<EventQueue> {
 public:
  using Item = std::optional<Result<KVEvent>>;

  // False once closed (or just overflowed): the stream should end.
  bool Push(Result<KVEvent> item) {
    std::unique_lock lock(mu_);
    if (closed_) return false;
    if (waiter_) {  // the queue is empty and the consumer waits: hand it over
      auto waiter = std::exchange(waiter_, nullptr);
      lock.unlock();
      waiter(Item(std::move(item)));
      return true;
    }
    if (items_.size() >= kWatchCapacity) {
      closed_ = true;
      items_.clear();
      return false;
    }
    items_.push_back(std::move(item));
    return true;
  }

  // No more pushes; the consumer gets what is queued (none if drop), then std::nullopt.
  void Close(bool drop) {
    std::unique_lock lock(mu_);
    closed_ = true;
    if (drop) items_.clear();
    auto waiter = std::exchange(waiter_, nullptr);
    lock.unlock();
    if (waiter) waiter(std::nullopt);
  }

  Awaitable<Item> Pop() {
    {
      std::lock_guard lock(mu_);
      if (!items_.empty()) co_return TakeLocked();
      if (closed_) co_return std::nullopt;
    }
    auto self = shared_from_this();
    // Checked again under the lock: a push may have come in meanwhile.
    std::function<void(std::function<void(Item)>)> wait = [self](std::function<void(Item)> done) {
      std::unique_lock lock(self->mu_);
      if (self->items_.empty() && !self->closed_) {
        self->waiter_ = std::move(done);
        return;
      }
      Item item = self->items_.empty() ? Item() : self->TakeLocked();
      lock.unlock();
      done(std::move(item));
    };
    co_return co_await AwaitCallback<Item>(std::move(wait));
  }

 private:
  Item TakeLocked() {
    Item item(std::move(items_.front()));
    items_.pop_front();
    return item;
  }

  std::mutex mu_;
  std::deque<Result<KVEvent>> items_;
  bool closed_ = false;
  std::function<void(Item)> waiter_;  // the consumer's pending Pop()
};

std::string B64(std::string_view bytes) { return util::Base64Encode(bytes); }

// Readers of the gateway's answers that never throw: a field of the wrong type reads as
// absent. The gateway omits fields that are zero, false or empty.
const json* Field(const json& j, const char* name) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(name);
  return it == j.end() ? nullptr : &*it;
}

bool Bool(const json& j, const char* name) {
  const json* f = Field(j, name);
  return f && f->is_boolean() && f->get<bool>();
}

std::string Str(const json& j, const char* name) {
  const json* f = Field(j, name);
  return f && f->is_string() ? f->get<std::string>() : std::string();
}

const json& Array(const json& j, const char* name) {
  static const json empty = json::array();
  const json* f = Field(j, name);
  return f && f->is_array() ? *f : empty;
}

const json& Object(const json& j, const char* name) {
  static const json empty = json::object();
  const json* f = Field(j, name);
  return f && f->is_object() ? *f : empty;
}

// An int64, which the gateway writes as a string.
int64_t Int(const json& j, const char* name) {
  const json* f = Field(j, name);
  if (!f) return 0;
  if (f->is_number_integer()) return f->get<int64_t>();
  if (!f->is_string()) return 0;
  const std::string& s = f->get_ref<const std::string&>();
  int64_t value = 0;
  std::from_chars(s.data(), s.data() + s.size(), value);
  return value;
}

int64_t HeaderRevision(const json& j) { return Int(Object(j, "header"), "revision"); }

// A base64 field; std::nullopt when it does not decode.
std::optional<std::string> Bytes(const json& j, const char* name) {
  const json* f = Field(j, name);
  if (!f || !f->is_string()) return std::string();
  return util::Base64Decode(f->get_ref<const std::string&>());
}

Result<KeyValue> ParseKV(const json& j) {
  auto key = Bytes(j, "key");
  auto value = Bytes(j, "value");
  if (!key || !value) return std::unexpected(InternalError("etcd sent a kv that is not base64"));
  return KeyValue{std::move(*key), std::make_shared<const std::string>(std::move(*value)),
                  Int(j, "create_revision"), Int(j, "mod_revision")};
}

Result<json> ParseBody(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return std::unexpected(
        InternalError("etcd answered with something not JSON: " + body.substr(0, 200)));
  }
  return j;
}

json Compare(const std::string& key, const char* target, const char* result, const char* field,
             int64_t value) {
  return json{{"key", B64(key)}, {"target", target}, {"result", result}, {field, value}};
}

// A compare-and-swap: success when every compare holds, else the key's current kv.
std::string TxnBody(const std::string& key, json compares, json success) {
  json failure = json::array({json{{"request_range", json{{"key", B64(key)}}}}});
  return json{{"compare", std::move(compares)},
              {"success", json::array({std::move(success)})},
              {"failure", std::move(failure)}}
      .dump();
}

StorageError TooLargeValue(const std::string& key, size_t size) {
  return {ErrorCode::kTooLarge, key,
          "request is too large: " + std::to_string(size) + " bytes, the limit is " +
              std::to_string(KV::kMaxValueBytes),
          0, nullptr};
}

// Raises newest to revision unless it is there already.
void NoteCompacted(std::atomic<int64_t>& newest, int64_t revision) {
  int64_t known = newest.load();
  while (revision > known && !newest.compare_exchange_weak(known, revision)) {
  }
}

// A watch's state, shared by its consumer (EtcdWatch) and its stream's callbacks, which
// run on the HTTP client's thread.
struct WatchState {
  std::string key;
  std::string end;
  bool progress_notify = false;
  std::shared_ptr<EventQueue> queue = std::make_shared<EventQueue>();
  std::shared_ptr<std::atomic<int64_t>> compact_revision;  // the EtcdKV's

  std::mutex mu;
  // The first revision not delivered yet: where a new stream resumes. 0 until the first
  // answer when watching "from now".
  int64_t next_revision = 0;
  std::function<void(Result<void>)> ready;  // resolves Watch() once, on the first answer
  std::shared_ptr<etcd3::HttpStream> stream;

  std::string Body() {
    json create{{"key", B64(key)}, {"prev_kv", true}};
    if (!end.empty()) create["range_end"] = B64(end);
    if (progress_notify) create["progress_notify"] = true;
    std::lock_guard lock(mu);
    if (next_revision > 0) create["start_revision"] = next_revision;
    return json{{"create_request", std::move(create)}}.dump();
  }

  void Resolve(Result<void> r) {
    std::function<void(Result<void>)> f;
    {
      std::lock_guard lock(mu);
      f = std::move(ready);
      ready = nullptr;
    }
    if (f) f(std::move(r));
  }

  // Delivers an error as the watch's last item.
  void Fail(StorageError e) {
    Resolve(Result<void>());
    queue->Push(std::unexpected(std::move(e)));
    queue->Close(false);
  }

  StreamCallbacks::Next OnLine(std::string_view line) {
    using Next = StreamCallbacks::Next;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Next::kReconnect;
    if (const json* error = Field(j, "error")) {
      // The gateway ends a broken gRPC stream with an error line: resume elsewhere.
      KLOG_V(2) << "etcd watch " << key << ": " << error->dump();
      return Next::kReconnect;
    }
    const json& r = Object(j, "result");
    if (Bool(r, "canceled")) {
      if (const int64_t compacted = Int(r, "compact_revision"); compacted > 0) {
        NoteCompacted(*compact_revision, compacted);
        int64_t requested;
        {
          std::lock_guard lock(mu);
          requested = next_revision;
        }
        Fail(TooOldError(requested, compacted));
      } else {
        Fail(InternalError("etcd canceled the watch of " + key + ": " + Str(r, "cancel_reason")));
      }
      return Next::kStop;
    }
    const int64_t header_revision = HeaderRevision(r);
    if (Bool(r, "created")) {
      {
        std::lock_guard lock(mu);
        if (next_revision == 0) next_revision = header_revision + 1;
      }
      Resolve(Result<void>());
      return Next::kContinue;
    }
    const json& events = Array(r, "events");
    if (events.empty()) {
      // Progress: every event up to the header's revision was sent.
      KVEvent progress;
      progress.type = KVEvent::Type::kProgress;
      progress.revision = header_revision;
      {
        std::lock_guard lock(mu);
        if (header_revision + 1 < next_revision) return Next::kContinue;  // a lagging member
        next_revision = header_revision + 1;
      }
      return queue->Push(Result<KVEvent>(std::move(progress))) ? Next::kContinue : Next::kStop;
    }
    // Events below this were delivered before a reconnection. (One transaction may put
    // several keys: events of one response can share a revision.)
    int64_t resumed_at;
    {
      std::lock_guard lock(mu);
      resumed_at = next_revision;
    }
    for (const json& e : events) {
      auto kv = ParseKV(Object(e, "kv"));
      if (!kv) {
        Fail(kv.error());
        return Next::kStop;
      }
      KVEvent event;
      event.revision = kv->mod_revision;
      if (event.revision < resumed_at) continue;
      {
        std::lock_guard lock(mu);
        next_revision = std::max(next_revision, event.revision + 1);
      }
      if (Str(e, "type") == "DELETE") {  // absent: PUT
        event.type = KVEvent::Type::kDelete;
        event.kv = KeyValue{std::move(kv->key), nullptr, 0, kv->mod_revision};
      } else {
        event.type = KVEvent::Type::kPut;
        event.kv = std::move(*kv);
      }
      if (const json* prev_kv = Field(e, "prev_kv")) {
        auto prev = ParseKV(*prev_kv);
        if (prev) event.prev = std::move(*prev);
      }
      if (!queue->Push(Result<KVEvent>(std::move(event))))
        return Next::kStop;  // stopped or overflowed
    }
    return Next::kContinue;
  }

  void OnEnd(etcd3::HttpResult r) {
    if (!r && r.error().kind == HttpError::Kind::kClosed) {
      Resolve(std::unexpected(UnreachableError(r.error().message)));
      queue->Close(false);  // the backend shut down: the stream just ends
      return;
    }
    StorageError e =
        r ? InternalError("etcd refused the watch of " + key + ": HTTP " +
                          std::to_string(r->status) + " " + r->body)
          : UnreachableError("the watch of " + key + " lost etcd: " + r.error().message);
    bool first;
    {
      std::lock_guard lock(mu);
      first = ready != nullptr;
    }
    if (first) {
      Resolve(std::unexpected(e));
      queue->Close(false);
    } else {
      Fail(std::move(e));
    }
  }
};

class EtcdWatch final : public KVWatch {
 public:
  explicit EtcdWatch(std::shared_ptr<WatchState> state) : state_(std::move(state)) {}
  ~EtcdWatch() override { Stop(); }

  Awaitable<std::optional<Result<KVEvent>>> Next() override {
    auto queue = state_->queue;
    co_return co_await queue->Pop();
  }

  void Stop() override {
    state_->queue->Close(true);
    std::shared_ptr<etcd3::HttpStream> stream;
    {
      std::lock_guard lock(state_->mu);
      stream = state_->stream;
    }
    if (stream) stream->Close();
  }

 private:
  std::shared_ptr<WatchState> state_;
};

}  // namespace

EtcdKV::EtcdKV(std::unique_ptr<etcd3::HttpClient> client) : client_(std::move(client)) {}

EtcdKV::~EtcdKV() = default;

std::expected<std::shared_ptr<EtcdKV>, std::string> EtcdKV::Open(EtcdOptions options) {
  etcd3::HttpClientOptions http;
  http.endpoints = options.endpoints;
  http.tls = options.tls;
  http.request_timeout = options.request_timeout;
  http.stream_retry_for = options.request_timeout;
  auto client = etcd3::HttpClient::New(std::move(http));
  if (!client) return std::unexpected(client.error());
  auto kv = std::shared_ptr<EtcdKV>(new EtcdKV(std::move(*client)));

  boost::asio::io_context io;
  std::optional<Result<std::string>> status;
  boost::asio::co_spawn(io, kv->Call("/v3/maintenance/status", "{}", Retry::kIdempotent, ""),
                        [&](std::exception_ptr e, Result<std::string> r) {
                          if (e) r = std::unexpected(InternalError("etcd status check failed"));
                          status = std::move(r);
                        });
  io.run();
  std::string names;
  for (const std::string& e : options.endpoints) names += (names.empty() ? "" : ", ") + e;
  if (!status || !*status) {
    return std::unexpected("etcd: none of the endpoints [" + names +
                           "] answered /v3/maintenance/status: " +
                           (status ? status->error().message : std::string("no answer")));
  }
  KLOG_V(1) << "etcd storage at " << names;
  return kv;
}

void EtcdKV::SetHealth(std::string error) {
  std::lock_guard lock(health_mu_);
  health_error_ = std::move(error);
}

Result<void> EtcdKV::Healthy() const {
  std::lock_guard lock(health_mu_);
  if (!health_error_.empty()) return std::unexpected(UnreachableError(health_error_));
  return {};
}

StorageError EtcdKV::FromAnswer(const etcd3::HttpResponse& answer, const std::string& key) {
  json j = json::parse(answer.body, nullptr, false);
  std::string message = answer.body.substr(0, 500);
  if (!Str(j, "message").empty()) message = Str(j, "message");
  auto has = [&](const char* text) { return message.find(text) != std::string::npos; };
  if (has("required revision has been compacted")) {
    return {ErrorCode::kTooOldResourceVersion, key, message, compact_revision_->load(), nullptr};
  }
  if (has("required revision is a future revision")) {
    return {ErrorCode::kTooLargeResourceVersion, key, message, 0, nullptr};
  }
  if (has("request is too large") || has("larger than max")) {
    return {ErrorCode::kTooLarge, key, message, 0, nullptr};
  }
  if (answer.status >= 500) {
    SetHealth(answer.endpoint + ": " + message);
    return UnreachableError("etcd " + answer.endpoint + ": " + message);
  }
  return InternalError("etcd " + answer.endpoint + ": HTTP " + std::to_string(answer.status) + " " +
                       message);
}

Awaitable<Result<std::string>> EtcdKV::Call(std::string path, std::string body, Retry retry,
                                            std::string key) {
  auto answer = co_await client_->Post(std::move(path), std::move(body), retry);
  if (!answer) {
    if (answer.error().kind != HttpError::Kind::kClosed) SetHealth(answer.error().message);
    co_return std::unexpected(UnreachableError(answer.error().message));
  }
  if (answer->status / 100 == 2) {
    SetHealth("");
    co_return std::move(answer->body);
  }
  if (answer->status < 500) SetHealth("");  // etcd answered; the request was wrong
  co_return std::unexpected(FromAnswer(*answer, key));
}

Awaitable<int64_t> EtcdKV::CurrentRevision(std::string key) {
  std::string body = json{{"key", B64(key)}, {"count_only", true}}.dump();
  auto got = co_await Call("/v3/kv/range", std::move(body), Retry::kIdempotent, key);
  if (!got) co_return 0;
  auto j = ParseBody(*got);
  co_return j ? HeaderRevision(*j) : 0;
}

Awaitable<Result<RangeResult>> EtcdKV::Range(std::string key, RangeOptions options) {
  json request{{"key", B64(key)}};
  if (!options.end.empty()) request["range_end"] = B64(options.end);
  if (options.revision > 0) request["revision"] = options.revision;
  if (options.limit > 0) request["limit"] = options.limit;
  if (options.count_only) request["count_only"] = true;
  auto got = co_await Call("/v3/kv/range", request.dump(), Retry::kIdempotent, key);
  if (!got) {
    StorageError e = got.error();
    if (e.code == ErrorCode::kTooOldResourceVersion) {
      e = TooOldError(options.revision, compact_revision_->load());
      e.key = key;
    } else if (e.code == ErrorCode::kTooLargeResourceVersion) {
      e.revision = co_await CurrentRevision(key);
    }
    co_return std::unexpected(e);
  }
  auto j = ParseBody(*got);
  if (!j) co_return std::unexpected(j.error());
  RangeResult out;
  out.revision = HeaderRevision(*j);
  out.more = Bool(*j, "more");
  out.count = Int(*j, "count");
  const json& kvs = Array(*j, "kvs");
  out.kvs.reserve(kvs.size());
  for (const json& kv : kvs) {
    auto parsed = ParseKV(kv);
    if (!parsed) co_return std::unexpected(parsed.error());
    out.kvs.push_back(std::move(*parsed));
  }
  co_return out;
}

Awaitable<Result<TxnResult>> EtcdKV::Txn(std::string key, std::string body) {
  // Not repeated after it was sent: a compare-and-swap applied twice would look lost.
  auto got = co_await Call("/v3/kv/txn", std::move(body), Retry::kUnsent, key);
  if (!got) co_return std::unexpected(got.error());
  auto j = ParseBody(*got);
  if (!j) co_return std::unexpected(j.error());
  TxnResult out;
  out.succeeded = Bool(*j, "succeeded");
  out.revision = HeaderRevision(*j);
  const json& responses = Array(*j, "responses");
  if (responses.empty()) co_return out;
  // What the one operation of the branch taken answered: the replaced or deleted kv, or
  // the current one.
  const json& r = responses.front();
  const json* kv = Field(Object(r, "response_put"), "prev_kv");
  if (const json& deleted = Array(Object(r, "response_delete_range"), "prev_kvs");
      !deleted.empty()) {
    kv = &deleted.front();
  }
  if (const json& current = Array(Object(r, "response_range"), "kvs"); !current.empty()) {
    kv = &current.front();
  }
  if (kv) {
    auto parsed = ParseKV(*kv);
    if (!parsed) co_return std::unexpected(parsed.error());
    if (out.succeeded) {
      out.prev = std::move(*parsed);
    } else {
      out.current = std::move(*parsed);
    }
  }
  co_return out;
}

Awaitable<Result<TxnResult>> EtcdKV::Create(std::string key, std::string value) {
  if (value.size() > kMaxValueBytes) co_return std::unexpected(TooLargeValue(key, value.size()));
  json compares = json::array({Compare(key, "CREATE", "EQUAL", "create_revision", 0)});
  json put{{"request_put", json{{"key", B64(key)}, {"value", B64(value)}, {"prev_kv", true}}}};
  std::string body = TxnBody(key, std::move(compares), std::move(put));
  co_return co_await Txn(std::move(key), std::move(body));
}

Awaitable<Result<TxnResult>> EtcdKV::Update(std::string key, std::string value,
                                            int64_t expected_revision) {
  if (value.size() > kMaxValueBytes) co_return std::unexpected(TooLargeValue(key, value.size()));
  // The key must exist: a missing key's mod_revision is 0.
  json compares = json::array({Compare(key, "MOD", "EQUAL", "mod_revision", expected_revision),
                               Compare(key, "CREATE", "GREATER", "create_revision", 0)});
  json put{{"request_put", json{{"key", B64(key)}, {"value", B64(value)}, {"prev_kv", true}}}};
  std::string body = TxnBody(key, std::move(compares), std::move(put));
  co_return co_await Txn(std::move(key), std::move(body));
}

Awaitable<Result<TxnResult>> EtcdKV::Delete(std::string key, int64_t expected_revision) {
  json compares = json::array({Compare(key, "MOD", "EQUAL", "mod_revision", expected_revision),
                               Compare(key, "CREATE", "GREATER", "create_revision", 0)});
  json del{{"request_delete_range", json{{"key", B64(key)}, {"prev_kv", true}}}};
  std::string body = TxnBody(key, std::move(compares), std::move(del));
  co_return co_await Txn(std::move(key), std::move(body));
}

Awaitable<Result<std::unique_ptr<KVWatch>>> EtcdKV::Watch(std::string key, KVWatchOptions options) {
  auto state = std::make_shared<WatchState>();
  state->key = std::move(key);
  state->end = std::move(options.end);
  state->progress_notify = options.progress_notify;
  state->next_revision = options.start_revision;
  state->compact_revision = compact_revision_;
  etcd3::HttpClient* client = client_.get();
  std::function<void(std::function<void(Result<void>)>)> start =
      [state, client](std::function<void(Result<void>)> done) {
        {
          std::lock_guard lock(state->mu);
          state->ready = std::move(done);
        }
        StreamCallbacks callbacks;
        callbacks.body = [state] { return state->Body(); };
        callbacks.on_line = [state](std::string_view line) {
          try {
            return state->OnLine(line);
          } catch (const std::exception& e) {  // out of memory, say: end the watch, loudly
            state->Fail(InternalError(std::string("etcd watch: ") + e.what()));
            return StreamCallbacks::Next::kStop;
          }
        };
        callbacks.on_end = [state](etcd3::HttpResult r) { state->OnEnd(std::move(r)); };
        auto stream = client->Stream("/v3/watch", std::move(callbacks));
        std::lock_guard lock(state->mu);
        state->stream = std::move(stream);
      };
  auto ready = co_await AwaitCallback<Result<void>>(std::move(start));
  auto watch = std::make_unique<EtcdWatch>(state);
  if (!ready) co_return std::unexpected(ready.error());  // the watch stops as it goes
  co_return std::unique_ptr<KVWatch>(std::move(watch));
}

Awaitable<Result<void>> EtcdKV::Compact(int64_t revision) {
  std::string body = json{{"revision", revision}, {"physical", false}}.dump();
  auto got = co_await Call("/v3/kv/compaction", std::move(body), Retry::kIdempotent, "");
  if (!got) {
    // Compacting at or below the last compaction changes nothing, as in the other backends.
    if (got.error().code != ErrorCode::kTooOldResourceVersion) {
      StorageError e = got.error();
      if (e.code == ErrorCode::kTooLargeResourceVersion) e.revision = co_await CurrentRevision("");
      co_return std::unexpected(e);
    }
  }
  NoteCompacted(*compact_revision_, revision);
  co_return Result<void>();
}

Awaitable<Result<KVStats>> EtcdKV::Stats() {
  // Every key: from "\0" with range_end "\0".
  const std::string all(1, '\0');
  std::string count = json{{"key", B64(all)}, {"range_end", B64(all)}, {"count_only", true}}.dump();
  auto counted = co_await Call("/v3/kv/range", std::move(count), Retry::kIdempotent, "");
  if (!counted) co_return std::unexpected(counted.error());
  auto c = ParseBody(*counted);
  if (!c) co_return std::unexpected(c.error());
  auto status = co_await Call("/v3/maintenance/status", "{}", Retry::kIdempotent, "");
  if (!status) co_return std::unexpected(status.error());
  auto s = ParseBody(*status);
  if (!s) co_return std::unexpected(s.error());
  KVStats out;
  out.keys = Int(*c, "count");
  out.revision = HeaderRevision(*c);
  out.file_bytes = Int(*s, "dbSize");
  out.value_bytes = 0;  // see etcd_kv.h
  out.compact_revision = compact_revision_->load();
  co_return out;
}

}  // namespace storage
