#pragma once
// The apiregistration.k8s.io/v1 apiservices resource as upstream's kube-aggregator serves it:
// cluster-scoped, in the "api-extensions" category, with a status subresource. Its strategy
// defaults the service port, validates as upstream (apiservice_validation.h), resets status on
// create (a local APIService starts Available) and keeps it on updates of the main resource;
// /status changes only status. Table columns: Name, Service, Available, Age.

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/registry/resource_spec.h"

namespace aggregator {

registry::ResourceSpecPtr APIServices();

// The cells upstream's table convertor prints after the name: the service ("Local", or
// "<namespace>/<name>") and availability ("True", "False (<reason>)", "Unknown").
std::string ServiceColumn(const nlohmann::json& apiservice);
std::string AvailableColumn(const nlohmann::json& apiservice);

}  // namespace aggregator
