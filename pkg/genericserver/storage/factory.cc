#include "pkg/genericserver/storage/factory.h"

#include "pkg/genericserver/storage/cacher/cacher.h"
#include "pkg/genericserver/storage/etcd3/etcd_kv.h"
#include "pkg/genericserver/storage/memory/memory_kv.h"
#include "pkg/genericserver/storage/sqlite/sqlite_kv.h"
#include "pkg/genericserver/storage/store.h"
#include "pkg/genericserver/storage/transforming_kv.h"
#include "pkg/genericserver/storage/value/encryption_config.h"
#include "pkg/util/log.h"

namespace storage {

std::expected<std::unique_ptr<StorageFactory>, std::string> StorageFactory::Open(
    const StorageConfig& config, boost::asio::io_context& io) {
  auto f = std::unique_ptr<StorageFactory>(new StorageFactory());
  f->backend_ = config.backend;
  f->io_ = &io;
  if (config.backend == "memory") {
    f->kv_ = MemoryKV::New();
  } else if (config.backend == "sqlite") {
    SqliteOptions options;
    options.path = config.sqlite_path;
    auto kv = SqliteKV::Open(options);
    if (!kv) return std::unexpected("opening the sqlite storage: " + kv.error());
    f->kv_ = *kv;
  } else if (config.backend == "etcd3") {
    EtcdOptions options;
    options.endpoints = config.etcd_servers;
    options.tls.ca_file = config.etcd_ca_file;
    options.tls.cert_file = config.etcd_cert_file;
    options.tls.key_file = config.etcd_key_file;
    auto kv = EtcdKV::Open(options);
    if (!kv) return std::unexpected("connecting to etcd: " + kv.error());
    f->kv_ = *kv;
  } else {
    return std::unexpected("storage backend " + config.backend + " is not available");
  }
  if (config.encryption) {
    f->encryption_ = config.encryption;
    f->transforming_ = std::make_shared<TransformingKV>(f->kv_, config.prefix);
    f->kv_ = f->transforming_;
  }
  f->store_ = std::make_shared<Store>(f->kv_, config.prefix);
  f->compactor_ = std::make_unique<Compactor>(f->store_, config.compaction, io);
  std::string where;
  if (config.backend == "sqlite") where = " at " + config.sqlite_path;
  for (const std::string& server : config.etcd_servers) where += " " + server;
  KLOG_INFO << "storage: " << config.backend << where;
  return f;
}

StorageFactory::~StorageFactory() { Stop(); }

std::shared_ptr<Interface> StorageFactory::ForResource(const std::string& resource_prefix) {
  std::lock_guard lock(mu_);
  auto& cacher = cachers_[resource_prefix];
  if (!cacher) {
    if (transforming_) {
      // The prefix is "/<resource>/" for the core group, "/<group>/<resource>/" otherwise.
      std::string_view p = std::string_view(resource_prefix).substr(1);
      p.remove_suffix(p.ends_with('/') ? 1 : 0);
      size_t slash = p.find('/');
      auto transformer = slash == std::string_view::npos
                             ? encryption_->ForResource("", p)
                             : encryption_->ForResource(p.substr(0, slash), p.substr(slash + 1));
      // A resource the configuration does not name is stored plain, and its encrypted
      // values are refused by name (as upstream's default identity transformer).
      if (!transformer) transformer = value::NewIdentityTransformer();
      transforming_->SetTransformer(resource_prefix, std::move(transformer));
    }
    CacherOptions options;
    options.resource_prefix = resource_prefix;
    cacher = std::make_shared<Cacher>(store_, options, *io_);
    cacher->Start();
  }
  return cacher;
}

void StorageFactory::Start() { compactor_->Start(); }

std::vector<std::string> StorageFactory::UnsyncedCaches() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [prefix, cacher] : cachers_) {
    if (!cacher->Ready()) out.push_back(prefix);
  }
  return out;
}

void StorageFactory::Stop() {
  if (compactor_) compactor_->Stop();
  std::lock_guard lock(mu_);
  for (auto& [prefix, cacher] : cachers_) cacher->Stop();
}

}  // namespace storage
