#pragma once
// --storage-backend, --etcd-servers, --etcd-prefix, --encryption-provider-config.

#include <string>
#include <vector>

#include "pkg/options/flagset.h"

namespace options {

inline constexpr char kStorageSqlite[] = "sqlite";
inline constexpr char kStorageEtcd3[] = "etcd3";
inline constexpr char kStorageMemory[] = "memory";

struct StorageOptions {
  std::string storage_backend = kStorageSqlite;
  std::vector<std::string> etcd_servers;
  std::string etcd_cafile;
  std::string etcd_certfile;
  std::string etcd_keyfile;
  std::string etcd_prefix = "/registry";
  // History older than this is compacted away (watches and continue tokens older get
  // 410 Expired); 0 turns compaction off.
  util::Duration compaction_interval = std::chrono::minutes(5);
  // An EncryptionConfiguration: which resources are encrypted at rest, and how.
  std::string encryption_provider_config;

  void AddFlags(FlagSet& fs);
  std::vector<std::string> Validate() const;
};

}  // namespace options
