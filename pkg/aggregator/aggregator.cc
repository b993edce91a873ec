#include "pkg/aggregator/aggregator.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "pkg/aggregator/apiservice_controller.h"
#include "pkg/aggregator/autoregister.h"
#include "pkg/aggregator/discovery.h"
#include "pkg/aggregator/proxy.h"
#include "pkg/aggregator/registry/apiservice.h"
#include "pkg/util/file.h"
#include "pkg/util/log.h"

#include "pkg/genericserver/endpoints/discovery_handler.h"
#include "pkg/genericserver/endpoints/installer.h"
#include "pkg/genericserver/endpoints/openapi/openapi_v2.h"
#include "pkg/genericserver/endpoints/openapi/openapi_v3.h"

namespace aggregator {
namespace {

// A PEM file's content; empty when no file is named or it cannot be read (logged).
std::string ReadOptionalFile(const std::string& path) {
  if (path.empty()) return "";
  auto content = util::ReadFile(path);
  if (!content) {
    KLOG_ERROR << "reading " << path << ": " << content.error();
    return "";
  }
  return std::move(*content);
}

// Upstream's autoregister-completion: every built-in group-version's APIService has been
// seen Available at least once. `builtin` holds "group/version"s ("/v1" for the core group).
genericserver::HealthCheck AutoregisterCompletion(const APIServiceTable& table,
                                                  const std::set<std::string>& builtin) {
  struct Seen {
    std::mutex mu;
    std::set<std::string> missing;
  };
  auto seen = std::make_shared<Seen>();
  for (const std::string& gv : builtin) {
    const size_t slash = gv.find('/');
    seen->missing.insert(gv.substr(slash + 1) + "." + gv.substr(0, slash));
  }
  return {"autoregister-completion", [&table, seen]() -> std::expected<void, std::string> {
            std::lock_guard lock(seen->mu);
            std::erase_if(seen->missing, [&table](const std::string& name) {
              APIServiceInfoPtr info = table.Get(name);
              return info && info->available;
            });
            if (seen->missing.empty()) return {};
            std::string names;
            for (const std::string& name : seen->missing)
              names += (names.empty() ? "" : " ") + name;
            return std::unexpected("missing APIService: [" + names + "]");
          }};
}

}  // namespace

std::unique_ptr<APIAggregator> APIAggregator::New(const genericserver::CompletedConfig& config,
                                                  genericserver::DelegationTarget& delegate,
                                                  storage::StorageFactory& storage,
                                                  const Config& aggregator) {
  auto s = std::unique_ptr<APIAggregator>(new APIAggregator());
  s->generic_ = config.New("kube-aggregator", delegate);
  // apiregistration.k8s.io/v1: apiservices and apiservices/status, from storage.
  registry::ResourceSpecPtr spec = APIServices();
  auto apiservices = std::make_shared<registry::Store>(
      spec, storage.ForResource(spec->storage_prefix + "/"), aggregator.admission);
  auto handler = std::make_unique<endpoints::GroupVersionHandler>(spec->group, spec->version,
                                                                  config.Get().lifecycle.get());
  handler->Add(apiservices);
  endpoints::APIGroupInfo group;
  group.group = {spec->group, {spec->version}};
  group.resources[spec->version] = handler->Resources();
  group.specs[spec->version] = handler->Specs();
  std::map<std::string, genericserver::HandlerPtr> handlers;
  handlers[spec->version] = std::move(handler);
  s->generic_->InstallAPIGroup(std::move(group), std::move(handlers));

  // The APIServices as the proxy, discovery and the controllers see them.
  genericserver::GenericAPIServer& server = *s->generic_;
  genericserver::Lifecycle& lifecycle = *config.Get().lifecycle;
  auto client_cert = ReadOptionalFile(aggregator.proxy_client_cert_file);
  auto client_key = ReadOptionalFile(aggregator.proxy_client_key_file);
  s->table_ = std::make_unique<APIServiceTable>(client_cert, client_key);
  s->resolver_ = std::make_unique<registry::ServiceResolver>(storage);
  const registry::ServiceResolver* resolver = s->resolver_.get();
  ServiceResolver resolve;
  if (aggregator.enable_aggregator_routing) {
    resolve = [resolver](std::string ns, std::string name, int port) {
      return resolver->Resolve(std::move(ns), std::move(name), port);
    };
  } else {
    resolve = [resolver](std::string ns, std::string name, int port) {
      return resolver->ResolveCluster(std::move(ns), std::move(name), port);
    };
  }
  // Upstream's availability checks do not verify the server; they present the proxy's
  // certificate.
  transport::TLSClientConfig check_tls;
  check_tls.insecure_skip_verify = true;
  check_tls.cert_pem = client_cert;
  check_tls.key_pem = client_key;
  auto check_client = transport::TLSClient::New(check_tls);
  if (!check_client) {
    KLOG_ERROR << "the proxy client certificate: " << check_client.error();
    check_tls.cert_pem.clear();
    check_tls.key_pem.clear();
    check_client = transport::TLSClient::New(check_tls);
  }
  auto controller = std::make_shared<APIServiceController>(apiservices, *s->table_, storage,
                                                           resolve, *check_client, lifecycle);
  // Upstream's hooks of its APIService informers and controllers, each done when what it
  // names is: here one controller does the work of several.
  server.AddPostStartHook("start-kube-aggregator-informers", controller->Start());
  auto checking = [controller] { return controller->Checking(); };
  server.AddPostStartHook("apiservice-status-local-available-controller",
                          genericserver::WaitFor(checking));
  server.AddPostStartHook("apiservice-status-remote-available-controller",
                          genericserver::WaitFor(checking));
  server.AddPostStartHook(
      "apiservice-registration-controller",
      genericserver::WaitFor([controller] { return controller->Registered(); }));
  server.AddPostStartHook("apiservice-discovery-controller", genericserver::WaitFor([controller] {
                            return controller->Discovered();
                          }));

  // Local APIServices for the chain's own group-versions: those listed now are built in.
  std::set<std::string> builtin;
  for (const auto& info : server.ListedGroups()) {
    for (const std::string& version : info.group.versions) {
      builtin.insert(info.group.name + "/" + version);
    }
  }
  auto crds_served = [&delegate] {
    for (const auto& hook : delegate.PostStartHooks()) {
      if (hook->Name() == "start-apiextensions-controllers" && !hook->Done()) return false;
    }
    return true;
  };
  server.AddPostStartHook("kube-apiserver-autoregistration",
                          AutoRegister(
                              apiservices, [&server] { return server.ListedGroups(); }, builtin,
                              crds_served, lifecycle));
  server.AddBootSequenceHealthCheck(AutoregisterCompletion(*s->table_, builtin));

  // /apis/<group>/<version>/... of remote APIServices; the rest goes on to the delegate.
  ProxyConfig proxy;
  proxy.table = s->table_.get();
  proxy.resolve = resolve;
  proxy.next = &delegate.UnprotectedHandler();
  proxy.lifecycle = &lifecycle;
  std::weak_ptr<APIServiceController> weak = controller;
  proxy.unreachable = [weak](const std::string& name) {
    if (auto c = weak.lock()) c->Enqueue(name);
  };
  server.Mux().HandlePrefix("/apis/", NewProxyHandler(std::move(proxy)));

  // The group list of the whole chain and of remote APIServices, in upstream's priority
  // order. Computed per request: CRDs and APIServices come and go.
  const APIServiceTable* table = s->table_.get();
  auto named_groups = [&server, table] { return MergedGroups(server.ListedGroups(), *table); };
  endpoints::DiscoveryDocuments documents;
  documents.legacy = [named_groups] {
    std::vector<endpoints::APIGroup> groups;
    for (auto& info : named_groups()) groups.push_back(std::move(info.group));
    return endpoints::EncodeAPIGroupList(groups);
  };
  // "/apis/" answers the APIGroupList only, as upstream's unlisted "/apis/" route does.
  endpoints::DiscoveryDocuments legacy_only;
  legacy_only.legacy = documents.legacy;
  server.Mux().Handle("/apis/", endpoints::NewDiscoveryHandler(std::move(legacy_only)));
  documents.groups = named_groups;
  server.Mux().Handle("/apis", endpoints::NewDiscoveryHandler(std::move(documents)));
  // OpenAPI v3 of every group of the chain, the legacy core group included, and the
  // documents of available remote group-versions as their servers publish them.
  auto remote_documents = [table] {
    endpoints::openapi::ExternalDocuments documents;
    for (const APIServiceInfoPtr& apiservice : table->All()) {
      if (!apiservice->service || !apiservice->available) continue;
      if (auto document = table->OpenAPI(apiservice->name)) {
        documents["apis/" + apiservice->group + "/" + apiservice->version] =
            std::shared_ptr<const std::string>(document, &document->body);
      }
    }
    return documents;
  };
  endpoints::openapi::InstallOpenAPIV3(
      server.Mux(), [&server] { return server.ListedGroups(); }, remote_documents);
  // OpenAPI v2: the chain's document, then the available remote group-versions' documents
  // in upstream's merge order (the group's highest groupPriorityMinimum first, then
  // versionPriority, then name).
  auto remote_v2 = [table] {
    std::vector<APIServiceInfoPtr> remote;
    std::map<std::string, int> group_priority;
    for (const APIServiceInfoPtr& apiservice : table->All()) {
      if (!apiservice->service || !apiservice->available) continue;
      remote.push_back(apiservice);
      int& p = group_priority[apiservice->group];
      p = std::max(p, apiservice->group_priority);
    }
    std::sort(remote.begin(), remote.end(), [&](const auto& a, const auto& b) {
      const int pa = group_priority[a->group], pb = group_priority[b->group];
      if (pa != pb) return pa > pb;
      if (a->version_priority != b->version_priority) {
        return a->version_priority > b->version_priority;
      }
      return a->name < b->name;
    });
    std::vector<endpoints::openapi::ExternalV2Document> documents;
    for (const APIServiceInfoPtr& apiservice : remote) {
      if (auto document = table->OpenAPIV2(apiservice->name)) {
        documents.push_back({apiservice->group, apiservice->version,
                             std::shared_ptr<const std::string>(document, &document->body)});
      }
    }
    return documents;
  };
  endpoints::openapi::InstallOpenAPIV2(
      server.Mux(), [&server] { return server.ListedGroups(); }, remote_v2);
  // The OpenAPI documents are merged per request; the remote ones come with each check.
  server.AddPostStartHook("apiservice-openapi-controller", genericserver::Done);
  server.AddPostStartHook("apiservice-openapiv3-controller", genericserver::Done);
  return s;
}

}  // namespace aggregator
