#pragma once
// What the service-account authenticator looks up (upstream's --service-account-lookup):
// the service accounts, Secrets, pods and nodes that exist, by namespace (nodes: "") and
// name, with their
// uid, whether they are being deleted, and a Secret's token. Kept in memory, fed from the
// watch caches by the server that owns the stores, so a token check reads no storage.
//
// Thread-safe: one feeder writes (exclusive lock), any thread reads (shared).

#include <map>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace authn {

class ServiceAccountObjects {
 public:
  enum class Kind { kServiceAccount, kSecret, kPod, kNode };
  static constexpr int kKinds = 4;
  struct Entry {
    std::string uid;
    bool deleting = false;        // has a deletionTimestamp
    std::string token;            // a Secret's data.token, decoded
    std::string service_account;  // a Secret's kubernetes.io/service-account.name annotation
  };

  void Replace(Kind kind, const std::vector<nlohmann::json>& objects);
  void Upsert(Kind kind, const nlohmann::json& object);
  void Remove(Kind kind, const nlohmann::json& object);
  void MarkSynced(Kind kind);
  bool Synced() const;

  std::optional<Entry> Find(Kind kind, std::string_view ns, std::string_view name) const;

 private:
  using Objects = std::map<std::string, std::map<std::string, Entry, std::less<>>, std::less<>>;
  Objects& Of(Kind kind) { return objects_[static_cast<int>(kind)]; }
  void UpsertLocked(Kind kind, const nlohmann::json& object);

  mutable std::shared_mutex mu_;
  Objects objects_[kKinds];  // by namespace, then name
  std::set<Kind> synced_;
};

}  // namespace authn
