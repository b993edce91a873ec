#pragma once
// A storage::Interface that serves one version of a resource kept in storage as another
// (events.k8s.io/v1 Events stored as core/v1 Events, autoscaling/v1 HPAs as v2): objects
// are converted on the way in and out, selection predicates see the served form, and the
// watch cache underneath is the one of the stored version, shared.

#include <functional>
#include <memory>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/storage/interface.h"

namespace storage {

struct Conversion {
  std::function<nlohmann::json(const nlohmann::json& served)> to_storage;
  std::function<nlohmann::json(const nlohmann::json& stored)> from_storage;
};

std::shared_ptr<Interface> NewConverting(std::shared_ptr<Interface> stored, Conversion conversion);

}  // namespace storage
