#include "pkg/apiextensions/serving.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/conversion/webhook.h"
#include "pkg/apiextensions/registry/crd.h"
#include "pkg/apiextensions/registry/custom_resource.h"
#include "pkg/apiextensions/schema/structural.h"
#include "pkg/genericserver/apimachinery/managedfields/field_manager.h"
#include "pkg/genericserver/endpoints/installer.h"
#include "pkg/genericserver/endpoints/version_priority.h"
#include "pkg/genericserver/server/responses.h"
#include "pkg/genericserver/storage/converting.h"

namespace apiextensions {

using nlohmann::json;

namespace {

// One served CRD.
struct CRDEntry {
  std::string name;
  std::string group;
  std::string plural;
  bool terminating = false;
  std::vector<std::string> versions;                               // served, by priority
  std::map<std::string, std::shared_ptr<registry::Store>> stores;  // by version
  std::shared_ptr<registry::Store> storage_store;
};

// One group of CRDs: its discovery documents and a handler per version.
struct GroupEntry {
  endpoints::APIGroupInfo info;
  std::string group_document;
  std::map<std::string, std::string> version_documents;
  std::map<std::string, std::shared_ptr<endpoints::GroupVersionHandler>> handlers;
  std::set<std::string> terminating;  // plurals whose CRD is being deleted
};

}  // namespace

struct CustomResourceServing::Snapshot {
  std::map<std::string, std::shared_ptr<const CRDEntry>> crds;  // by CRD name
  std::map<std::string, std::shared_ptr<const GroupEntry>> groups;
};

namespace {

class ServingHandler final : public genericserver::Handler {
 public:
  ServingHandler(std::function<std::shared_ptr<const CustomResourceServing::Snapshot>()> current,
                 genericserver::Handler& not_found)
      : current_(std::move(current)), not_found_(not_found) {}

  Awaitable<void> Serve(genericserver::RequestContext& ctx,
                        genericserver::ResponseWriter& out) override {
    auto snapshot = current_();
    std::string_view path = ctx.info.path;
    path.remove_prefix(std::string_view("/apis/").size());
    const size_t slash = path.find('/');
    const std::string group(path.substr(0, slash));
    auto g = snapshot->groups.find(group);
    if (g == snapshot->groups.end()) {
      co_await not_found_.Serve(ctx, out);
      co_return;
    }
    const GroupEntry& entry = *g->second;
    std::string_view rest = slash == std::string_view::npos ? "" : path.substr(slash + 1);
    if (rest.empty()) {
      co_await genericserver::WriteJSON(out, 200, entry.group_document);
      co_return;
    }
    const size_t vslash = rest.find('/');
    const std::string version(rest.substr(0, vslash));
    auto handler = entry.handlers.find(version);
    if (handler == entry.handlers.end()) {
      co_await not_found_.Serve(ctx, out);
      co_return;
    }
    if (vslash == std::string_view::npos || rest.substr(vslash + 1).empty()) {
      co_await genericserver::WriteJSON(out, 200, entry.version_documents.at(version));
      co_return;
    }
    if (ctx.info.verb == "create" && ctx.info.subresource.empty() &&
        entry.terminating.contains(ctx.info.resource)) {
      const apimachinery::GroupResource resource{group, ctx.info.resource};
      const apimachinery::Status refused = apimachinery::NewMethodNotSupported(resource, "create");
      co_await genericserver::WriteStatus(out, refused);
      co_return;
    }
    co_await handler->second->Serve(ctx, out);
  }

 private:
  std::function<std::shared_ptr<const CustomResourceServing::Snapshot>()> current_;
  genericserver::Handler& not_found_;
};

// How objects of `resource`'s version are kept in the storage version and read back:
// pruned and defaulted as they are read, as upstream's storage decoding does; between
// versions by rewriting apiVersion (strategy None) or by the CRD's webhook (when one was
// configured: `webhook`, or why it could not be made).
storage::Conversion VersionConversion(registry::ResourceSpecPtr resource,
                                      const std::string& storage_version,
                                      std::shared_ptr<conversion::WebhookConverter> webhook,
                                      const std::string& webhook_error) {
  const std::string stored_gv = resource->group + "/" + storage_version;
  const std::string served_gv = resource->GroupVersion();
  storage::Conversion c;
  c.to_storage = [stored_gv](const json& served) {
    json stored = served;
    stored["apiVersion"] = stored_gv;
    return stored;
  };
  c.from_storage = [resource, served_gv](const json& stored) {
    json served = stored;
    served["apiVersion"] = served_gv;
    resource->unstructured->Prune(served);
    resource->strategy->Default(served);
    return served;
  };
  if (!webhook && webhook_error.empty()) return c;
  c.batch =
      [webhook, webhook_error, resource, stored_gv, served_gv](
          std::vector<json> objects,
          bool to_storage) -> Awaitable<std::expected<std::vector<json>, apimachinery::Status>> {
    if (!webhook) co_return std::unexpected(apimachinery::NewInternalError(webhook_error));
    std::string desired = to_storage ? stored_gv : served_gv;
    auto converted = co_await webhook->Convert(std::move(objects), std::move(desired));
    if (!converted) co_return std::unexpected(apimachinery::NewInternalError(converted.error()));
    if (!to_storage) {
      for (json& served : *converted) {
        resource->unstructured->Prune(served);
        resource->strategy->Default(served);
      }
    }
    co_return std::move(*converted);
  };
  return c;
}

}  // namespace

CustomResourceServing::CustomResourceServing(
    storage::StorageFactory& storage, registry::Admission admission,
    genericserver::Lifecycle* lifecycle, genericserver::Handler& not_found,
    std::function<void(std::shared_ptr<registry::Store>)> made_store)
    : storage_(storage),
      admission_(std::move(admission)),
      made_store_(std::move(made_store)),
      lifecycle_(lifecycle),
      not_found_(not_found),
      resolver_(std::make_shared<registry::ServiceResolver>(storage)),
      snapshot_(std::make_shared<Snapshot>()) {}

CustomResourceServing::~CustomResourceServing() = default;

std::shared_ptr<const CustomResourceServing::Snapshot> CustomResourceServing::Current() const {
  std::lock_guard lock(mu_);
  return snapshot_;
}

std::expected<void, std::string> CustomResourceServing::Serve(const json& crd) {
  auto entry = std::make_shared<CRDEntry>();
  const json& spec = crd.at("spec");
  entry->name = crd["metadata"].value("name", "");
  entry->group = spec.value("group", "");
  entry->plural = spec["names"].value("plural", "");
  entry->terminating = ConditionTrue(crd, "Terminating");
  const std::string storage_version = StorageVersion(crd);
  const std::string prefix = "/" + entry->group + "/" + entry->plural;
  auto cache = storage_.ForResource(prefix + "/");
  const json& versions = spec.value("versions", json::array());
  bool wrap = versions.size() > 1;
  // strategy Webhook: versions other than the one an object is in are converted by the
  // CRD's webhook; a converter that cannot be made fails every conversion with its reason.
  std::shared_ptr<conversion::WebhookConverter> webhook;
  std::string webhook_error;
  if (spec.contains("conversion") && spec["conversion"].value("strategy", "") == "Webhook") {
    auto made = conversion::WebhookConverter::New(
        crd, [resolver = resolver_](std::string ns, std::string name, int port) {
          return resolver->Resolve(std::move(ns), std::move(name), port);
        });
    if (made) {
      webhook = *made;
    } else {
      webhook_error = made.error();
    }
  }
  for (const json& v : versions) {
    if (v.is_object() && v.contains("schema") && v["schema"].is_object() &&
        SchemaUses(v["schema"].value("openAPIV3Schema", json()), "default")) {
      wrap = true;
    }
  }
  // Strategy None: a version is another's with its apiVersion rewritten, so managers that
  // wrote through one are compared there by writes through the others (a webhook's
  // conversions cannot be waited for there: they are compared in the version written).
  std::shared_ptr<apimachinery::managedfields::KindVersions> kind_versions;
  if (!webhook && webhook_error.empty() && versions.size() > 1) {
    kind_versions = std::make_shared<apimachinery::managedfields::KindVersions>();
  }
  std::vector<registry::ResourceSpecPtr> linked;
  for (const json& v : versions) {
    if (!v.is_object()) continue;
    const std::string name = v.value("name", "");
    const bool served = v.value("served", false);
    if (!served && name != storage_version) continue;
    auto made = CustomResourceSpec(crd, name);
    if (!made) return std::unexpected(made.error());
    registry::ResourceSpecPtr resource = *made;
    if (kind_versions) {
      auto with_version = [](std::string gv) {
        return [gv](const json& o) {
          json out = o;
          out["apiVersion"] = gv;
          return out;
        };
      };
      kind_versions->Add(resource->GroupVersion(), resource->field_manager,
                         with_version(entry->group + "/" + storage_version),
                         with_version(resource->GroupVersion()));
      linked.push_back(resource);
    }
    std::shared_ptr<storage::Interface> storage = cache;
    if (wrap) {
      storage = storage::NewConverting(
          cache, VersionConversion(resource, storage_version, webhook, webhook_error));
    }
    auto store = std::make_shared<registry::Store>(resource, std::move(storage), admission_);
    if (made_store_ && served) made_store_(store);
    if (name == storage_version) entry->storage_store = store;
    if (served) {
      entry->versions.push_back(name);
      entry->stores[name] = std::move(store);
    }
  }
  for (const auto& resource : linked) resource->field_manager->LinkVersions(kind_versions);
  std::sort(entry->versions.begin(), entry->versions.end(), endpoints::VersionPriorityLess);

  std::lock_guard lock(mu_);
  auto next = std::make_shared<Snapshot>(*snapshot_);
  std::string old_group;
  if (auto it = next->crds.find(entry->name); it != next->crds.end()) old_group = it->second->group;
  next->crds[entry->name] = entry;
  RebuildGroup(*next, entry->group);
  if (!old_group.empty() && old_group != entry->group) RebuildGroup(*next, old_group);
  snapshot_ = std::move(next);
  return {};
}

void CustomResourceServing::Remove(const std::string& name) {
  std::lock_guard lock(mu_);
  auto it = snapshot_->crds.find(name);
  if (it == snapshot_->crds.end()) return;
  auto next = std::make_shared<Snapshot>(*snapshot_);
  const std::string group = it->second->group;
  next->crds.erase(name);
  RebuildGroup(*next, group);
  snapshot_ = std::move(next);
}

void CustomResourceServing::MarkTerminating(const std::string& name) {
  std::lock_guard lock(mu_);
  auto it = snapshot_->crds.find(name);
  if (it == snapshot_->crds.end() || it->second->terminating) return;
  auto next = std::make_shared<Snapshot>(*snapshot_);
  auto entry = std::make_shared<CRDEntry>(*it->second);
  entry->terminating = true;
  next->crds[name] = entry;
  RebuildGroup(*next, entry->group);
  snapshot_ = std::move(next);
}

std::shared_ptr<registry::Store> CustomResourceServing::StorageStore(
    const std::string& name) const {
  auto snapshot = Current();
  auto it = snapshot->crds.find(name);
  return it == snapshot->crds.end() ? nullptr : it->second->storage_store;
}

void CustomResourceServing::RebuildGroup(Snapshot& next, const std::string& group) const {
  std::vector<std::shared_ptr<const CRDEntry>> members;
  for (const auto& [name, entry] : next.crds) {
    if (entry->group == group) members.push_back(entry);
  }
  if (members.empty()) {
    next.groups.erase(group);
    return;
  }
  auto g = std::make_shared<GroupEntry>();
  g->info.group.name = group;
  std::set<std::string> versions;
  for (const auto& m : members) {
    versions.insert(m->versions.begin(), m->versions.end());
    if (m->terminating) g->terminating.insert(m->plural);
  }
  std::vector<std::string> ordered(versions.begin(), versions.end());
  std::sort(ordered.begin(), ordered.end(), endpoints::VersionPriorityLess);
  g->info.group.versions = ordered;
  for (const std::string& version : ordered) {
    auto handler = std::make_shared<endpoints::GroupVersionHandler>(group, version, lifecycle_);
    for (const auto& m : members) {
      if (auto s = m->stores.find(version); s != m->stores.end()) handler->Add(s->second);
    }
    g->info.resources[version] = handler->Resources();
    g->info.specs[version] = handler->Specs();
    g->version_documents[version] =
        endpoints::EncodeAPIResourceList(group + "/" + version, g->info.resources[version]);
    g->handlers[version] = std::move(handler);
  }
  g->group_document = endpoints::EncodeAPIGroup(g->info.group);
  next.groups[group] = std::move(g);
}

genericserver::HandlerPtr CustomResourceServing::Handler() {
  return std::make_unique<ServingHandler>([this] { return Current(); }, not_found_);
}

std::vector<endpoints::APIGroupInfo> CustomResourceServing::Groups() const {
  auto snapshot = Current();
  std::vector<endpoints::APIGroupInfo> out;
  out.reserve(snapshot->groups.size());
  for (const auto& [name, g] : snapshot->groups) out.push_back(g->info);
  return out;
}

}  // namespace apiextensions
