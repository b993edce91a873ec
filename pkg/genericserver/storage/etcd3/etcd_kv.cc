// The etcd backend: requests and answers of the v3 JSON gateway. Watches are in
// etcd_watch.cc, the gateway's JSON in gateway_json.cc.
#include "pkg/genericserver/storage/etcd3/etcd_kv.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "pkg/genericserver/storage/etcd3/etcd_watch.h"
#include "pkg/genericserver/storage/etcd3/gateway_json.h"
#include "pkg/util/log.h"

namespace storage {

using etcd3::Array;
using etcd3::B64;
using etcd3::Bool;
using etcd3::Compare;
using etcd3::Field;
using etcd3::HeaderRevision;
using etcd3::HttpError;
using etcd3::Int;
using etcd3::Object;
using etcd3::ParseBody;
using etcd3::ParseKV;
using etcd3::Retry;
using etcd3::Str;
using etcd3::TxnBody;
using json = nlohmann::json;

namespace {

StorageError TooLargeValue(const std::string& key, size_t size) {
  return {ErrorCode::kTooLarge, key,
          "request is too large: " + std::to_string(size) + " bytes, the limit is " +
              std::to_string(KV::kMaxValueBytes),
          0, nullptr};
}

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
  return etcd3::StartWatch(client_.get(), std::move(key), std::move(options), compact_revision_);
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
  etcd3::NoteCompacted(*compact_revision_, revision);
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