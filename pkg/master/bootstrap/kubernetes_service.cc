#include "pkg/master/bootstrap/kubernetes_service.h"

#include <nlohmann/json.hpp>

namespace master::bootstrap {
namespace {

using nlohmann::json;

// Writes `desired` unless the stored object already has its spec (or subsets).
Awaitable<std::expected<void, std::string>> Ensure(registry::Store& store, json desired,
                                                   const char* field) {
  auto got = co_await store.Get("default", "kubernetes", "");
  if (got) {
    const json stored = registry::Parse(**got);
    const json& have = stored.contains(field) ? stored[field] : json();
    bool same = true;
    if (desired[field].is_object()) {
      // The fields set here, the cluster IP aside (it never changes once held).
      for (const auto& [key, value] : desired[field].items()) {
        if (key != "clusterIP" && (!have.is_object() || have.value(key, json()) != value)) {
          same = false;
        }
      }
    } else {
      same = have == desired[field];
    }
    if (same) co_return std::expected<void, std::string>();
  } else if (got.error().code != 404) {
    co_return std::unexpected(got.error().message);
  }
  registry::UpdateFunc replace = [desired](const json* old) -> Awaitable<registry::Result<json>> {
    json updated = desired;
    if (old) {
      updated["metadata"] = (*old)["metadata"];
      for (const auto& [key, value] : desired["metadata"].items()) updated["metadata"][key] = value;
      if (old->contains("spec") && desired.contains("spec")) {
        json spec = (*old)["spec"];
        for (const auto& [key, value] : desired["spec"].items()) {
          if (key != "clusterIP" || !spec.contains(key)) spec[key] = value;
        }
        updated["spec"] = spec;
      }
    }
    co_return updated;
  };
  const registry::WriteOptions options;
  auto r = co_await store.Update("default", "kubernetes", replace, options, nullptr);
  if (!r) co_return std::unexpected(r.error().message);
  co_return std::expected<void, std::string>();
}

}  // namespace

genericserver::PostStartHookFunc KubernetesServiceHook(std::shared_ptr<registry::Store> namespaces,
                                                       std::shared_ptr<registry::Store> services,
                                                       std::shared_ptr<registry::Store> endpoints,
                                                       KubernetesService want) {
  return [namespaces, services, endpoints, want]() -> Awaitable<std::expected<void, std::string>> {
    json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "default"}}}};
    const registry::WriteOptions options;
    auto created = co_await namespaces->Create("", std::move(ns), options);
    if (!created && created.error().code != 409) {
      co_return std::unexpected("creating namespace default: " + created.error().message);
    }
    const json labels = {{"component", "apiserver"}, {"provider", "kubernetes"}};
    json service = {
        {"apiVersion", "v1"},
        {"kind", "Service"},
        {"metadata", {{"name", "kubernetes"}, {"namespace", "default"}, {"labels", labels}}},
        {"spec",
         {{"type", "ClusterIP"},
          {"clusterIP", want.cluster_ip},
          {"sessionAffinity", "None"},
          {"ports",
           {{{"name", "https"}, {"port", 443}, {"protocol", "TCP"}, {"targetPort", want.port}}}}}}};
    if (auto r = co_await Ensure(*services, std::move(service), "spec"); !r) {
      co_return std::unexpected("the kubernetes service: " + r.error());
    }
    json ep = {{"apiVersion", "v1"},
               {"kind", "Endpoints"},
               {"metadata",
                {{"name", "kubernetes"},
                 {"namespace", "default"},
                 {"labels", {{"endpointslice.kubernetes.io/skip-mirror", "true"}}}}},
               {"subsets",
                {{{"addresses", {{{"ip", want.address}}}},
                  {"ports", {{{"name", "https"}, {"port", want.port}, {"protocol", "TCP"}}}}}}}};
    if (auto r = co_await Ensure(*endpoints, std::move(ep), "subsets"); !r) {
      co_return std::unexpected("the kubernetes endpoints: " + r.error());
    }
    co_return std::expected<void, std::string>();
  };
}

}  // namespace master::bootstrap
