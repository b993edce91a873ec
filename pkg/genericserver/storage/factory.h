#pragma once
// What the server owns of storage: the backend chosen by --storage-backend, the Store
// over it, one watch cache per resource prefix, and the compactor. Made once at start.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pkg/genericserver/storage/compactor.h"
#include "pkg/genericserver/storage/interface.h"
#include "pkg/genericserver/storage/kv.h"

namespace boost::asio {
class io_context;
}

namespace storage {

class Cacher;
class TransformingKV;
namespace value {
class EncryptionConfig;
}

struct StorageConfig {
  std::string backend = "sqlite";         // sqlite | etcd3 | memory
  std::string sqlite_path;                // for sqlite
  std::vector<std::string> etcd_servers;  // for etcd3
  std::string etcd_ca_file;               // for https:// etcd servers
  std::string etcd_cert_file;             // client certificate for etcd, with etcd_key_file
  std::string etcd_key_file;
  std::string prefix = "/registry";
  CompactorOptions compaction;
  // --encryption-provider-config; null: values are stored as they are.
  std::shared_ptr<const value::EncryptionConfig> encryption;
};

class StorageFactory {
 public:
  // Opens the backend (failing with a clear message: unreadable file, no etcd answers).
  // io must outlive the factory.
  static std::expected<std::unique_ptr<StorageFactory>, std::string> Open(
      const StorageConfig& config, boost::asio::io_context& io);
  ~StorageFactory();

  // The storage without a cache.
  std::shared_ptr<Interface> Uncached() { return store_; }
  // The watch cache for a resource prefix ("/configmaps/"), made and started on first use.
  std::shared_ptr<Interface> ForResource(const std::string& resource_prefix);
  // For /readyz and /livez: whether the backend answers.
  Result<void> Healthy() const { return kv_->Healthy(); }
  // For /readyz: the resource prefixes whose watch cache has no initial list yet.
  std::vector<std::string> UnsyncedCaches() const;
  const std::string& Backend() const { return backend_; }
  // Starts the compactor; stop everything before io stops.
  void Start();
  void Stop();

 private:
  StorageFactory() = default;
  std::string backend_;
  boost::asio::io_context* io_ = nullptr;
  std::shared_ptr<KV> kv_;
  // The encrypting layer over the backend (kv_ is it), when there is a configuration.
  std::shared_ptr<TransformingKV> transforming_;
  std::shared_ptr<const value::EncryptionConfig> encryption_;
  std::shared_ptr<Interface> store_;
  std::unique_ptr<Compactor> compactor_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Cacher>> cachers_;
};

}  // namespace storage
