#pragma once
// The field manager of one kind (upstream's k8s.io/apiserver fieldmanager): keeps
// metadata.managedFields on every write (Update) and merges applied configurations
// (server-side apply) by the rules of the kind's schema, with ownership, conflicts and
// removal of fields a manager stopped applying. Immutable once built (the typed schema is
// built on first use, once); any thread.

#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/status.h"

namespace apimachinery::typed {
class Schema;
}

namespace apimachinery::managedfields {

// Paths of fields a write may not change (status for the main resource of a kind with a
// status subresource; everything but status through /status): nobody gains them.
using ResetFields = std::vector<std::vector<std::string>>;

// Who writes, as upstream names a manager without ?fieldManager: the User-Agent up to its
// first "/", printable characters only, at most 128 bytes ("kubectl-create").
std::string ManagerFromUserAgent(std::string_view user_agent);

class FieldManager;

// The served versions of one kind (autoscaling/v1 beside v2, a CRD's versions), so that a
// write compares what it changed in the version each manager wrote through, as upstream's
// converter lets structured-merge-diff do: each version's field manager, and how its objects
// convert to the kind's hub (the storage version) and back. Filled before the first write
// through any of them (before the stores serve), read-only afterwards: any thread.
class KindVersions {
 public:
  using Conversion = std::function<nlohmann::json(const nlohmann::json&)>;
  void Add(std::string api_version, std::weak_ptr<const FieldManager> manager, Conversion to_hub,
           Conversion from_hub);
  // `object` (of `from`) as `to` sees it; std::nullopt when either version is not the kind's.
  std::optional<nlohmann::json> Convert(const nlohmann::json& object, const std::string& from,
                                        const std::string& to) const;
  std::shared_ptr<const FieldManager> Manager(const std::string& api_version) const;

 private:
  struct Version {
    std::weak_ptr<const FieldManager> manager;
    Conversion to_hub, from_hub;
  };
  std::map<std::string, Version, std::less<>> versions_;
};

struct WriteContext {
  std::string manager;
  std::string subresource;  // "", "status", "scale"
  ResetFields reset;
};

class FieldManager {
 public:
  struct Options {
    const nlohmann::json* components = nullptr;  // components.schemas of the kind
    std::string schema_name;
    const nlohmann::json* fallback = nullptr;  // where other $refs resolve (ObjectMeta)
    std::string api_version;                   // "apps/v1"
    std::string kind;
    bool unstructured = false;  // custom resources: a new object is {}
  };
  explicit FieldManager(Options options);
  ~FieldManager();

  // An update (create: live == nullptr) to `object`: records what the write changed for
  // the manager, takes it from the others, and sets object's metadata.managedFields. The
  // managedFields the client sent are kept when they decode (`[{}]`: none), else those of
  // the live object. Never fails: a live object whose managedFields do not decode leaves
  // the object without any.
  void Update(const nlohmann::json* live, nlohmann::json& object, const WriteContext& write) const;

  // An apply of `config` to `live` (nullptr: the object does not exist): the merged object
  // with its managedFields, a 409 listing the conflicts unless `force`, or a 400 for a
  // configuration that does not fit the schema.
  std::expected<nlohmann::json, Status> Apply(const nlohmann::json* live,
                                              const nlohmann::json& config,
                                              const WriteContext& write, bool force) const;

  // Upstream's new empty object of the kind, as JSON (built once, with the schema).
  const nlohmann::json& NewObject() const;

  // The kind's other versions, for managers that wrote through them; without any, every
  // manager's fields are compared in this version. Set before the first write (below a
  // mutex all the same: the field manager is shared).
  void LinkVersions(std::shared_ptr<const KindVersions> versions) const;
  std::shared_ptr<const KindVersions> versions() const;

  // The typed schema the kind's objects are merged and compared with (built on first use).
  const typed::Schema& schema() const;

 private:
  Options options_;
  mutable std::once_flag once_;
  mutable std::unique_ptr<typed::Schema> schema_;
  mutable nlohmann::json new_object_;
  mutable std::mutex versions_mu_;
  mutable std::shared_ptr<const KindVersions> versions_;  // guarded by versions_mu_
};

// An applied configuration's apiVersion must be the one applied to: upstream's 400 otherwise.
std::optional<Status> CheckApplyVersion(const nlohmann::json& config, std::string_view expected);

}  // namespace apimachinery::managedfields
