#pragma once
// The etcd backend (--storage-backend=etcd3): the KV over etcd 3.4+'s v3 JSON gateway
// (POST /v3/kv/range, /v3/kv/txn, /v3/kv/compaction, /v3/watch, /v3/maintenance/status)
// through HttpClient. Keys and values travel base64-encoded, int64s as strings.
//
// Writes are single transactions that compare a revision and answer with the key's
// current kv when the comparison fails. A write goes to another endpoint only when it
// certainly reached none: one whose connection broke after it was sent fails
// kUnreachable (it may have been applied) rather than risk applying it twice. Watches are streams
// that resume on another endpoint from the revision after the last one delivered when their
// connection breaks. Stats: keys and revision from a count-only range over every key, file_bytes
// from the status's dbSize; value_bytes is left 0 (it would mean reading every value), and
// compact_revision is the newest compaction this process made or saw (etcd does not
// report it otherwise).

#include <atomic>
#include <expected>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pkg/genericserver/storage/etcd3/http_client.h"
#include "pkg/genericserver/storage/kv.h"

namespace storage {

struct EtcdOptions {
  std::vector<std::string> endpoints;  // http://host:port or https://host:port
  etcd3::TlsConfig tls;
  util::Duration request_timeout = std::chrono::seconds(10);
};

class EtcdKV final : public KV {
 public:
  // Connects, and checks that some endpoint answers /v3/maintenance/status; fails with
  // a message naming every endpoint and its error otherwise. Blocks the caller.
  static std::expected<std::shared_ptr<EtcdKV>, std::string> Open(EtcdOptions options);
  ~EtcdKV() override;

  Awaitable<Result<RangeResult>> Range(std::string key, RangeOptions options) override;
  Awaitable<Result<TxnResult>> Create(std::string key, std::string value) override;
  Awaitable<Result<TxnResult>> Update(std::string key, std::string value,
                                      int64_t expected_revision) override;
  Awaitable<Result<TxnResult>> Delete(std::string key, int64_t expected_revision) override;
  Awaitable<Result<std::unique_ptr<KVWatch>>> Watch(std::string key,
                                                    KVWatchOptions options) override;
  Awaitable<Result<void>> Compact(int64_t revision) override;
  Awaitable<Result<KVStats>> Stats() override;
  // Whether the most recent request reached etcd; never blocks.
  Result<void> Healthy() const override;

 private:
  explicit EtcdKV(std::unique_ptr<etcd3::HttpClient> client);

  // POSTs and turns what came back into a JSON body or a StorageError (key for context).
  // Also records health.
  Awaitable<Result<std::string>> Call(std::string path, std::string body, etcd3::Retry retry,
                                      std::string key);
  Awaitable<Result<TxnResult>> Txn(std::string key, std::string body);
  // The store's revision now (for kTooLargeResourceVersion), 0 when unknown.
  Awaitable<int64_t> CurrentRevision(std::string key);
  StorageError FromAnswer(const etcd3::HttpResponse& answer, const std::string& key);
  void SetHealth(std::string error);

  std::unique_ptr<etcd3::HttpClient> client_;
  // The newest compaction revision seen; shared with the watches, whose callbacks run on
  // the client's thread and must not hold the EtcdKV (its last release there would join
  // that thread from itself).
  std::shared_ptr<std::atomic<int64_t>> compact_revision_ =
      std::make_shared<std::atomic<int64_t>>(0);
  mutable std::mutex health_mu_;
  std::string health_error_;  // empty: healthy
};

}  // namespace storage
