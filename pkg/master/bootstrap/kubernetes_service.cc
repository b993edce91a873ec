#include "pkg/master/bootstrap/kubernetes_service.h"

#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/util/log.h"

namespace master::bootstrap {
namespace {

using nlohmann::json;

// Creates `desired` ("kubernetes" in default), or corrects the stored one when one of
// `fields` differs: objects compared and merged key by key (a held cluster IP is never
// changed), anything else replaced.
Awaitable<std::expected<void, std::string>> Ensure(registry::Store& store, json desired,
                                                   std::vector<const char*> fields) {
  const registry::WriteOptions options;
  auto got = co_await store.Get("default", "kubernetes", "");
  if (!got && got.error().code != 404) co_return std::unexpected(got.error().message);
  if (!got) {
    auto created = co_await store.Create("default", desired, options);
    if (created || created.error().code == 409) co_return std::expected<void, std::string>();
    co_return std::unexpected(created.error().message);
  }
  const json stored = registry::Parse(**got);
  bool same = true;
  for (const char* field : fields) {
    const json have = stored.value(field, json());
    if (!desired[field].is_object()) {
      same = same && have == desired[field];
      continue;
    }
    for (const auto& [key, value] : desired[field].items()) {
      if (key != "clusterIP" && (!have.is_object() || have.value(key, json()) != value)) {
        same = false;
      }
    }
  }
  if (same) co_return std::expected<void, std::string>();
  registry::UpdateFunc replace = [desired,
                                  fields](const json* old) -> Awaitable<registry::Result<json>> {
    if (!old) co_return desired;
    json updated = *old;
    for (const auto& [key, value] : desired["metadata"].items()) updated["metadata"][key] = value;
    for (const char* field : fields) {
      if (!desired[field].is_object() || !updated[field].is_object()) {
        updated[field] = desired[field];
        continue;
      }
      for (const auto& [key, value] : desired[field].items()) {
        if (key != "clusterIP" || !updated[field].contains(key)) updated[field][key] = value;
      }
    }
    co_return updated;
  };
  auto r = co_await store.Update("default", "kubernetes", replace, options, nullptr);
  if (!r) co_return std::unexpected(r.error().message);
  co_return std::expected<void, std::string>();
}

}  // namespace

genericserver::PostStartHookFunc KubernetesServiceHook(
    std::shared_ptr<registry::Store> namespaces, std::shared_ptr<registry::Store> services,
    std::shared_ptr<registry::Store> endpoints, std::shared_ptr<registry::Store> endpoint_slices,
    KubernetesService want) {
  return [namespaces, services, endpoints, endpoint_slices,
          want]() -> Awaitable<std::expected<void, std::string>> {
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
    const std::vector<const char*> service_fields = {"spec"};
    if (auto r = co_await Ensure(*services, std::move(service), service_fields); !r) {
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
    // Upstream's endpoint reconciler only logs a failure here (an advertise address that
    // Endpoints may not hold, such as a loopback one): the server serves without them.
    const std::vector<const char*> endpoints_fields = {"subsets"};
    if (auto r = co_await Ensure(*endpoints, std::move(ep), endpoints_fields); !r) {
      KLOG_WARNING << "the kubernetes endpoints: " << r.error();
    }
    json slice = {
        {"apiVersion", "discovery.k8s.io/v1"},
        {"kind", "EndpointSlice"},
        {"metadata",
         {{"name", "kubernetes"},
          {"namespace", "default"},
          {"labels", {{"kubernetes.io/service-name", "kubernetes"}}}}},
        {"addressType", want.address.find(':') == std::string::npos ? "IPv4" : "IPv6"},
        {"endpoints", {{{"addresses", {want.address}}, {"conditions", {{"ready", true}}}}}},
        {"ports", {{{"name", "https"}, {"port", want.port}, {"protocol", "TCP"}}}}};
    const std::vector<const char*> slice_fields = {"endpoints", "ports"};
    if (auto r = co_await Ensure(*endpoint_slices, std::move(slice), slice_fields); !r) {
      KLOG_WARNING << "the kubernetes endpoint slice: " << r.error();
    }
    co_return std::expected<void, std::string>();
  };
}

}  // namespace master::bootstrap
