#pragma once
// The `kubernetes` Service in `default`, its Endpoints and EndpointSlice: how workloads in the
// cluster reach the API server (first IP of the service range, port 443 to the secure port).
// Created after start-up, corrected when they drifted, left alone when right.

#include <memory>
#include <string>

#include "pkg/genericserver/registry/store.h"
#include "pkg/genericserver/server/hooks.h"

namespace master::bootstrap {

struct KubernetesService {
  std::string cluster_ip;  // the first IP of --service-cluster-ip-range
  std::string address;     // the advertised address of this server
  int port = 6443;         // its secure port
};

// The hook; it creates the `default` namespace first if the namespaces hook has not yet.
genericserver::PostStartHookFunc KubernetesServiceHook(
    std::shared_ptr<registry::Store> namespaces, std::shared_ptr<registry::Store> services,
    std::shared_ptr<registry::Store> endpoints, std::shared_ptr<registry::Store> endpoint_slices,
    KubernetesService want);

}  // namespace master::bootstrap
