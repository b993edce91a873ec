#include "pkg/master/bootstrap/rbac_bootstrap.h"

#include <chrono>
#include <map>
#include <set>
#include <vector>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/master/bootstrap/rbac_policy.h"
#include "pkg/master/bootstrap/rbac_reconcile.h"
#include "pkg/util/log.h"

namespace master::bootstrap {
namespace {

using nlohmann::json;
namespace asio = boost::asio;

constexpr auto kRetryInterval = std::chrono::seconds(1);
constexpr auto kRetryTimeout = std::chrono::seconds(30);
// As upstream's reconciliation: a create that finds the object, or an update that finds it
// gone, looks again, a few times.
constexpr int kAttempts = 3;

// One of the four kinds, as upstream's messages name it.
struct Kind {
  const char* noun;  // "clusterrole", ...
  bool binding;
  registry::Store* store;
};

// "clusterrole.rbac.authorization.k8s.io/admin", "role.rbac.authorization.k8s.io/x in kube-system".
std::string Describe(const Kind& kind, const std::string& ns, const std::string& name) {
  std::string out = std::string(kind.noun) + ".rbac.authorization.k8s.io/" + name;
  if (!ns.empty()) out += " in " + ns;
  return out;
}

ReconcileResult Reconcile(const Kind& kind, const json& existing, const json& expected) {
  return kind.binding ? ReconcileBinding(existing, expected) : ReconcileRole(existing, expected);
}

std::string Missing(const Kind& kind, const ReconcileResult& r) {
  return kind.binding ? FormatSubjects(r.missing) : FormatRules(r.missing);
}

// What upstream logs once an object is reconciled (nothing for a no-op).
void LogResult(const Kind& kind, const std::string& ns, const std::string& name,
               const ReconcileResult& r) {
  const std::string what = Describe(kind, ns, name);
  const char* extra = kind.binding ? "subjects" : "permissions";
  if (r.is_protected) {
    if (r.operation != ReconcileOperation::kNone) {
      KLOG_WARNING << "skipped reconcile-protected " << what << " with missing " << extra << ": "
                   << Missing(kind, r);
    }
    return;
  }
  switch (r.operation) {
    case ReconcileOperation::kCreate:
      KLOG_V(2) << "created " << what;
      break;
    case ReconcileOperation::kUpdate:
      KLOG_V(2) << "updated " << what << " with additional " << extra << ": " << Missing(kind, r);
      break;
    case ReconcileOperation::kRecreate:
      KLOG_V(2) << "recreated " << what;
      break;
    case ReconcileOperation::kNone:
      break;
  }
}

// The stored objects of one kind by "namespace/name", parsed.
using Snapshot = std::map<std::string, json>;

std::string SnapshotKey(const std::string& ns, const std::string& name) { return ns + "/" + name; }

Awaitable<std::optional<std::string>> List(registry::Store& store, std::string ns, Snapshot& into) {
  registry::ListOptions options;
  auto listed = co_await store.List(ns, options);
  if (!listed) co_return listed.error().message;
  for (const storage::ObjectPtr& item : listed->items) {
    json object = registry::Parse(*item);
    const std::string key = SnapshotKey(registry::MetaString(object, "namespace"),
                                        registry::MetaString(object, "name"));
    into[key] = std::move(object);
  }
  co_return std::nullopt;
}

// Upstream's tryEnsureNamespace: a namespaced bootstrap object's namespace is created when
// missing (the system namespaces' hook may not have run yet).
Awaitable<std::optional<apimachinery::Status>> EnsureNamespace(registry::Store& namespaces,
                                                               std::string name) {
  auto got = co_await namespaces.Get("", name, "");
  if (got) co_return std::nullopt;
  if (got.error().code != 404 && got.error().code != 403) co_return got.error();
  json object = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
  const registry::WriteOptions options;
  auto created = co_await namespaces.Create("", std::move(object), options);
  if (!created && created.error().code != 409 && created.error().code != 403) {
    co_return created.error();
  }
  co_return std::nullopt;
}

// The plan again from the object stored now (none when it is gone), after a write found
// the object changed meanwhile; or the error of reading it.
Awaitable<std::expected<ReconcileResult, std::string>> Replan(const Kind& kind,
                                                              const std::string& ns,
                                                              const std::string& name,
                                                              const json& expected) {
  auto current = co_await kind.store->Get(ns, name, "");
  if (!current && current.error().code != 404) co_return std::unexpected(current.error().message);
  json existing;
  if (current) existing = registry::Parse(**current);
  co_return Reconcile(kind, existing, expected);
}

// One object to write: the policy's object and what the snapshot said to do with it.
struct Write {
  Kind kind;
  registry::Store* namespaces;
  json expected;
  ReconcileResult planned;
};

// Writes one object as upstream's ReconcileRoleOptions.Run / ReconcileRoleBindingOptions.Run
// do: create, update (computed again from the stored object, so a concurrent change is not
// lost) or, for a binding with another roleRef, delete (with the stored uid) and create;
// looks again when the object appeared or went meanwhile. "" or the error.
Awaitable<std::string> Apply(Write w) {
  const std::string ns = registry::MetaString(w.expected, "namespace");
  const std::string name = registry::MetaString(w.expected, "name");
  registry::Store& store = *w.kind.store;
  const registry::WriteOptions write_options;
  ReconcileResult plan = std::move(w.planned);
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    if (plan.is_protected || plan.operation == ReconcileOperation::kNone) {
      LogResult(w.kind, ns, name, plan);
      co_return "";
    }
    if (plan.operation == ReconcileOperation::kUpdate) {
      // What the last run of the update function decided (the one written).
      auto decided = std::make_shared<ReconcileResult>();
      const Kind kind = w.kind;
      const json expected = w.expected;
      registry::UpdateFunc update = [kind, expected, decided,
                                     name](const json* old) -> Awaitable<registry::Result<json>> {
        if (!old) {
          co_return std::unexpected(apimachinery::NewNotFound(kind.store->Spec().Resource(), name));
        }
        *decided = Reconcile(kind, *old, expected);
        if (decided->is_protected || decided->operation != ReconcileOperation::kUpdate) {
          co_return *old;  // unchanged: no write
        }
        co_return decided->object;
      };
      auto updated = co_await store.Update(ns, name, std::move(update), write_options, nullptr);
      if (updated) {
        LogResult(w.kind, ns, name, *decided);
        co_return "";
      }
      if (updated.error().code != 404) co_return updated.error().message;
      plan = Reconcile(w.kind, json(), w.expected);  // gone meanwhile: create it
      continue;
    }
    if (plan.operation == ReconcileOperation::kRecreate) {
      registry::DeleteOptions options;
      auto stored = co_await store.Get(ns, name, "");
      if (stored) options.precondition_uid = registry::MetaString(registry::Parse(**stored), "uid");
      auto deleted = co_await store.Delete(ns, name, options);
      if (!deleted && deleted.error().code == 409) {
        // Another object of that name (another uid): look again.
        auto replanned = co_await Replan(w.kind, ns, name, w.expected);
        if (!replanned) co_return replanned.error();
        plan = std::move(*replanned);
        continue;
      }
      if (!deleted && deleted.error().code != 404) co_return deleted.error().message;
    }
    // Create (also the second half of a recreate).
    if (!ns.empty()) {
      if (auto failed = co_await EnsureNamespace(*w.namespaces, ns)) co_return failed->message;
    }
    auto created = co_await store.Create(ns, plan.object, write_options);
    if (created) {
      LogResult(w.kind, ns, name, plan);
      co_return "";
    }
    if (created.error().code != 409) co_return created.error().message;
    // Created meanwhile: reconcile with that one.
    auto replanned = co_await Replan(w.kind, ns, name, w.expected);
    if (!replanned) co_return replanned.error();
    plan = std::move(*replanned);
  }
  co_return "exceeded maximum attempts";
}

// Runs every write at once on `io`'s threads (the storage batches them into few commits),
// their results gathered on this coroutine's strand; the errors, one per failed write.
struct Fanout {
  explicit Fanout(const asio::any_io_executor& ex) : done(ex) {}
  size_t pending = 0;
  std::vector<std::string> errors;
  asio::steady_timer done;
};

Awaitable<std::vector<std::string>> ApplyAll(std::vector<Write> writes, asio::any_io_executor io) {
  const asio::any_io_executor strand = co_await asio::this_coro::executor;
  auto fanout = std::make_shared<Fanout>(strand);
  fanout->done.expires_at(asio::steady_timer::time_point::max());
  fanout->pending = writes.size();
  for (Write& w : writes) {
    std::string what = Describe(w.kind, registry::MetaString(w.expected, "namespace"),
                                registry::MetaString(w.expected, "name"));
    auto finished = [fanout, what = std::move(what)](std::exception_ptr e, std::string error) {
      if (e) {
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& ex) {
          error = ex.what();
        }
      }
      if (!error.empty()) fanout->errors.push_back("unable to reconcile " + what + ": " + error);
      if (--fanout->pending == 0) fanout->done.cancel();
    };
    asio::co_spawn(io, Apply(std::move(w)), asio::bind_executor(strand, std::move(finished)));
  }
  while (fanout->pending > 0) {
    boost::system::error_code ec;
    co_await fanout->done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  co_return fanout->errors;
}

// Strips what the server sets, so that a stored object can be created under another name.
json AsNew(json object, const std::string& name) {
  json& meta = object["metadata"];
  meta["name"] = name;
  for (const char* field :
       {"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink"}) {
    meta.erase(field);
  }
  return object;
}

// Upstream's primeAggregatedClusterRoles and primeSplitClusterRoleBindings, from the
// snapshot; what they create is added to it.
Awaitable<std::optional<std::string>> Prime(const RBACStores& stores, Snapshot& roles,
                                            Snapshot& bindings) {
  static constexpr std::pair<const char*, const char*> kAggregated[] = {
      {"admin", "system:aggregate-to-admin"},
      {"edit", "system:aggregate-to-edit"},
      {"view", "system:aggregate-to-view"}};
  const registry::WriteOptions options;
  for (const auto& [old_name, new_name] : kAggregated) {
    if (roles.contains(SnapshotKey("", new_name))) continue;
    auto old = roles.find(SnapshotKey("", old_name));
    if (old == roles.end() || old->second.contains("aggregationRule")) continue;
    KLOG_V(1) << "migrating " << old_name << " to " << new_name;
    json copy = AsNew(old->second, new_name);
    auto created = co_await stores.cluster_roles->Create("", copy, options);
    if (!created && created.error().code != 409) co_return created.error().message;
    if (created) roles[SnapshotKey("", new_name)] = registry::Parse(**created);
  }
  const std::string source = "system:discovery", target = "system:public-info-viewer";
  auto discovery = bindings.find(SnapshotKey("", source));
  if (discovery != bindings.end() && !bindings.contains(SnapshotKey("", target))) {
    KLOG_V(1) << "copying subjects, labels, and annotations from ClusterRoleBinding \"" << source
              << "\" to template \"" << target << "\"";
    for (const json& binding : BootstrapRBACPolicy().cluster_role_bindings) {
      if (registry::MetaString(binding, "name") != target) continue;
      json copy = binding;
      const json& from = discovery->second;
      copy["subjects"] = from.value("subjects", json());
      const json& meta = from.value("metadata", json::object());
      for (const char* field : {"labels", "annotations"}) {
        if (meta.contains(field)) {
          copy["metadata"][field] = meta[field];
        } else {
          copy["metadata"].erase(field);
        }
      }
      auto created = co_await stores.cluster_role_bindings->Create("", copy, options);
      if (!created && created.error().code != 409) co_return created.error().message;
      if (created) bindings[SnapshotKey("", target)] = registry::Parse(**created);
    }
  }
  co_return std::nullopt;
}

// One pass: "" when every object is as the policy wants (or protected), else why not.
Awaitable<std::string> ReconcileOnce(RBACStores stores, asio::any_io_executor io) {
  const RBACPolicy& policy = BootstrapRBACPolicy();
  Snapshot cluster_roles, cluster_role_bindings, roles, role_bindings;
  // Make sure the storage answers before reconciling, as upstream.
  if (auto failed = co_await List(*stores.cluster_roles, "", cluster_roles)) {
    co_return "unable to initialize clusterroles: " + *failed;
  }
  if (auto failed = co_await List(*stores.cluster_role_bindings, "", cluster_role_bindings)) {
    co_return "unable to initialize clusterrolebindings: " + *failed;
  }
  std::set<std::string> namespaces;
  for (const json& r : policy.roles) namespaces.insert(registry::MetaString(r, "namespace"));
  for (const json& b : policy.role_bindings)
    namespaces.insert(registry::MetaString(b, "namespace"));
  for (const std::string& ns : namespaces) {
    if (auto failed = co_await List(*stores.roles, ns, roles)) {
      co_return "unable to initialize roles: " + *failed;
    }
    if (auto failed = co_await List(*stores.role_bindings, ns, role_bindings)) {
      co_return "unable to initialize rolebindings: " + *failed;
    }
  }
  if (auto failed = co_await Prime(stores, cluster_roles, cluster_role_bindings)) {
    co_return "unable to prime aggregated clusterroles and split clusterrolebindings: " + *failed;
  }

  const Kind kinds[] = {{"clusterrole", false, stores.cluster_roles.get()},
                        {"clusterrolebinding", true, stores.cluster_role_bindings.get()},
                        {"role", false, stores.roles.get()},
                        {"rolebinding", true, stores.role_bindings.get()}};
  const std::vector<json>* wanted[] = {&policy.cluster_roles, &policy.cluster_role_bindings,
                                       &policy.roles, &policy.role_bindings};
  Snapshot* stored[] = {&cluster_roles, &cluster_role_bindings, &roles, &role_bindings};
  std::vector<Write> writes;
  for (size_t k = 0; k < 4; ++k) {
    for (const json& expected : *wanted[k]) {
      const std::string ns = registry::MetaString(expected, "namespace");
      const std::string name = registry::MetaString(expected, "name");
      auto it = stored[k]->find(SnapshotKey(ns, name));
      const json none;
      ReconcileResult planned =
          Reconcile(kinds[k], it == stored[k]->end() ? none : it->second, expected);
      if (planned.is_protected || planned.operation == ReconcileOperation::kNone) {
        LogResult(kinds[k], ns, name, planned);  // a warning when protected and behind
        continue;
      }
      writes.push_back({kinds[k], stores.namespaces.get(), expected, std::move(planned)});
    }
  }
  if (writes.empty()) co_return "";
  const size_t count = writes.size();
  const std::vector<std::string> errors = co_await ApplyAll(std::move(writes), io);
  for (const std::string& e : errors) KLOG_ERROR << e;
  if (errors.empty()) {
    KLOG_V(2) << "reconciled " << count << " RBAC bootstrap objects";
    co_return "";
  }
  co_return std::to_string(errors.size()) + " of " + std::to_string(count) +
      " RBAC bootstrap objects not reconciled";
}

// Passes until one succeeds, every second for 30 s, as upstream's wait.Poll.
Awaitable<std::expected<void, std::string>> EnsureRBACPolicy(RBACStores stores,
                                                             asio::any_io_executor io) {
  const auto deadline = std::chrono::steady_clock::now() + kRetryTimeout;
  asio::steady_timer timer(co_await asio::this_coro::executor);
  while (true) {
    const std::string failed = co_await ReconcileOnce(stores, io);
    if (failed.empty()) co_return std::expected<void, std::string>();
    KLOG_ERROR << failed;
    if (std::chrono::steady_clock::now() + kRetryInterval > deadline) {
      co_return std::unexpected("unable to initialize roles: timed out waiting for the condition");
    }
    timer.expires_after(kRetryInterval);
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

}  // namespace

genericserver::PostStartHookFunc RBACBootstrapRoles(RBACStores stores) {
  return [stores]() -> Awaitable<std::expected<void, std::string>> {
    const asio::any_io_executor executor = co_await asio::this_coro::executor;
    const asio::any_io_executor strand = asio::make_strand(executor);
    auto run = EnsureRBACPolicy(stores, executor);
    co_return co_await asio::co_spawn(strand, std::move(run), asio::use_awaitable);
  };
}

}  // namespace master::bootstrap
