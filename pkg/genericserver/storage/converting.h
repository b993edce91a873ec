#pragma once
// A storage::Interface that serves one version of a resource kept in storage as another
// (events.k8s.io/v1 Events stored as core/v1 Events, autoscaling/v1 HPAs as v2): objects
// are converted on the way in and out, selection predicates see the served form, and the
// watch cache underneath is the one of the stored version, shared.

#include <expected>
#include <functional>
#include <memory>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/apimachinery/status.h"
#include "pkg/genericserver/storage/interface.h"

namespace storage {

struct Conversion {
  std::function<nlohmann::json(const nlohmann::json& served)> to_storage;
  std::function<nlohmann::json(const nlohmann::json& stored)> from_storage;
  // A conversion that must wait for someone else (a CRD's conversion webhook): when set,
  // it converts instead of the two above, all objects of one call in one batch, to the
  // stored form (to_storage true) or to the served one; its error fails the call (it is
  // answered as given). from_storage is still used, synchronously, to match selectors
  // against watched and listed objects, and should then keep metadata as it is.
  using Batch =
      std::function<Awaitable<std::expected<std::vector<nlohmann::json>, apimachinery::Status>>(
          std::vector<nlohmann::json> objects, bool to_storage)>;
  Batch batch;
};

std::shared_ptr<Interface> NewConverting(std::shared_ptr<Interface> stored, Conversion conversion);

}  // namespace storage
