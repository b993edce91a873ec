#include "pkg/genericserver/storage/etcd3/etcd_watch.h"

#include <algorithm>
#include <functional>
#include <mutex>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/storage/async_queue.h"
#include "pkg/genericserver/storage/completion.h"
#include "pkg/genericserver/storage/etcd3/gateway_json.h"
#include "pkg/genericserver/storage/etcd3/http_client.h"
#include "pkg/util/log.h"

namespace storage::etcd3 {

using json = nlohmann::json;

namespace {

// Events a watcher may fall behind by before it is cut off (as WatchQueue::kCapacity).
constexpr size_t kWatchCapacity = 100000;

// A watch's items, from the stream's thread to one consumer coroutine at a time; an
// error is the last item of a watch that failed.
using EventQueue = AsyncQueue<Result<KVEvent>>;

// A watch's state, shared by its consumer (EtcdWatch) and its stream's callbacks, which
// run on the HTTP client's thread.
struct WatchState {
  std::string key;
  std::string end;
  bool progress_notify = false;
  std::shared_ptr<EventQueue> queue = std::make_shared<EventQueue>(kWatchCapacity);
  std::shared_ptr<std::atomic<int64_t>> compact_revision;  // the EtcdKV's

  std::mutex mu;
  // The first revision not delivered yet: where a new stream resumes. 0 until the first
  // answer when watching "from now".
  int64_t next_revision = 0;
  std::function<void(Result<void>)> ready;  // resolves Watch() once, on the first answer
  std::shared_ptr<HttpStream> stream;

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

  // False once the queue is closed: the stream should end. A push past kWatchCapacity
  // also drops what is queued: a consumer that cannot keep up is cut off.
  bool Push(Result<KVEvent> item) {
    if (queue->Push(std::move(item))) return true;
    if (queue->overflowed()) queue->CloseNow();
    return false;
  }

  // Delivers an error as the watch's last item.
  void Fail(StorageError e) {
    Resolve(Result<void>());
    Push(std::unexpected(std::move(e)));
    queue->Close();
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
      return Push(Result<KVEvent>(std::move(progress))) ? Next::kContinue : Next::kStop;
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
      if (!Push(Result<KVEvent>(std::move(event)))) return Next::kStop;  // stopped or overflowed
    }
    return Next::kContinue;
  }

  void OnEnd(HttpResult r) {
    if (!r && r.error().kind == HttpError::Kind::kClosed) {
      Resolve(std::unexpected(UnreachableError(r.error().message)));
      queue->Close();  // the backend shut down: the stream just ends
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
      queue->Close();
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
    state_->queue->CloseNow();
    std::shared_ptr<HttpStream> stream;
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

void NoteCompacted(std::atomic<int64_t>& newest, int64_t revision) {
  int64_t known = newest.load();
  while (revision > known && !newest.compare_exchange_weak(known, revision)) {
  }
}

Awaitable<Result<std::unique_ptr<KVWatch>>> StartWatch(
    HttpClient* client, std::string key, KVWatchOptions options,
    std::shared_ptr<std::atomic<int64_t>> compact_revision) {
  auto state = std::make_shared<WatchState>();
  state->key = std::move(key);
  state->end = std::move(options.end);
  state->progress_notify = options.progress_notify;
  state->next_revision = options.start_revision;
  state->compact_revision = std::move(compact_revision);
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
        callbacks.on_end = [state](HttpResult r) { state->OnEnd(std::move(r)); };
        auto stream = client->Stream("/v3/watch", std::move(callbacks));
        std::lock_guard lock(state->mu);
        state->stream = std::move(stream);
      };
  auto ready = co_await AwaitCallback<Result<void>>(std::move(start));
  auto watch = std::make_unique<EtcdWatch>(state);
  if (!ready) co_return std::unexpected(ready.error());  // the watch stops as it goes
  co_return std::unique_ptr<KVWatch>(std::move(watch));
}

}  // namespace storage::etcd3
