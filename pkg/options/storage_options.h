#pragma once
// --storage-backend, --etcd-servers, --etcd-prefix.

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
  std::string etcd_prefix = "/registry";

  void AddFlags(FlagSet& fs);
  std::vector<std::string> Validate() const;
};

}  // namespace options
