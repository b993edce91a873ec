#pragma once
// The /scale subresource as an autoscaling/v1 Scale view of an object: spec.replicas read
// from and written to one field of the object, status.replicas and status.selector read
// from others. Built-in kinds use spec.replicas and status.replicas; custom resources the
// paths their CRD names.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/registry/resource_spec.h"

namespace registry {

struct ScalePaths {
  std::vector<std::string> spec_replicas = {"spec", "replicas"};
  std::vector<std::string> status_replicas = {"status", "replicas"};
  // The label selector the Scale reports in status.selector ("" leaves it out).
  std::function<std::string(const nlohmann::json& object)> selector;
};

std::shared_ptr<const SubresourceView> NewScaleView(ScalePaths paths);

// ".spec.replicas" -> {"spec", "replicas"}: the simple paths CRDs give for scale.
std::vector<std::string> SplitSimplePath(std::string_view path);

}  // namespace registry
