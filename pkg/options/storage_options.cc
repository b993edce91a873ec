#include "pkg/options/storage_options.h"

#include <filesystem>

#include "pkg/util/strings.h"

namespace options {

void StorageOptions::AddFlags(FlagSet& fs) {
  fs.Section("Storage flags");
  fs.String("storage-backend", &storage_backend,
            "Where objects are kept: sqlite (embedded, under --data-dir), etcd3 (the "
            "--etcd-servers cluster) or memory (lost on exit).");
  fs.StringList("etcd-servers", &etcd_servers,
                "etcd endpoints (scheme://ip:port) for --storage-backend=etcd3.");
  fs.String("etcd-cafile", &etcd_cafile, "PEM bundle of CAs for https:// etcd servers.");
  fs.String("etcd-certfile", &etcd_certfile, "Client certificate (PEM) for etcd.");
  fs.String("etcd-keyfile", &etcd_keyfile, "Key (PEM) of --etcd-certfile.");
  fs.String("etcd-prefix", &etcd_prefix, "The key prefix of every object in storage.");
  fs.Duration("etcd-compaction-interval", &compaction_interval,
              "How much history storage keeps: older revisions (beyond the newest 1000) are "
              "compacted, for every backend. 0 turns compaction off.");
  fs.String("encryption-provider-config", &encryption_provider_config,
            "The file (apiserver.config.k8s.io/v1 EncryptionConfiguration, YAML or JSON) "
            "that says which resources are encrypted in storage and with which providers and "
            "keys (aescbc, aesgcm, secretbox, identity); read at start.");
}

std::vector<std::string> StorageOptions::Validate() const {
  std::vector<std::string> errors;
  if (storage_backend != kStorageSqlite && storage_backend != kStorageEtcd3 &&
      storage_backend != kStorageMemory) {
    errors.push_back("--storage-backend invalid, allowed values: sqlite, etcd3, memory");
  }
  if (storage_backend == kStorageEtcd3 && etcd_servers.empty()) {
    errors.push_back("--etcd-servers must be specified");
  }
  for (const std::string& server : etcd_servers) {
    std::string_view s = server;
    size_t scheme_end = s.find("://");
    std::string_view scheme = scheme_end == std::string_view::npos ? "" : s.substr(0, scheme_end);
    if ((scheme != "http" && scheme != "https") || s.size() == scheme_end + 3) {
      errors.push_back("--etcd-servers " + util::Quote(server) +
                       " is not a valid URL: want http://host:port or https://host:port");
    }
  }
  for (const auto& [flag, path] :
       {std::pair{"--etcd-cafile", etcd_cafile}, std::pair{"--etcd-certfile", etcd_certfile},
        std::pair{"--etcd-keyfile", etcd_keyfile}}) {
    if (!path.empty() && !std::filesystem::is_regular_file(path)) {
      errors.push_back(std::string(flag) + " " + util::Quote(path) + ": no such file");
    }
  }
  if (etcd_certfile.empty() != etcd_keyfile.empty()) {
    errors.push_back("--etcd-certfile and --etcd-keyfile must be given together");
  }
  if (compaction_interval.count() < 0) {
    errors.push_back("--etcd-compaction-interval can not be negative value");
  }
  if (!encryption_provider_config.empty() &&
      !std::filesystem::is_regular_file(encryption_provider_config)) {
    errors.push_back("--encryption-provider-config " + util::Quote(encryption_provider_config) +
                     ": no such file");
  }
  if (etcd_prefix.empty() || etcd_prefix.front() != '/') {
    errors.push_back("--etcd-prefix " + util::Quote(etcd_prefix) + " must start with \"/\"");
  }
  return errors;
}

}  // namespace options
