#include "pkg/controller/resourcequota/persistent_volume_claims.h"

#include <nlohmann/json.hpp>

#include "pkg/controller/object.h"

namespace controller::resourcequota {

using nlohmann::json;

namespace {

constexpr std::string_view kStorageClassSuffix = ".storageclass.storage.k8s.io/";
constexpr char kBetaStorageClassAnnotation[] = "volume.beta.kubernetes.io/storage-class";

util::Quantity RoundedUp(util::Quantity q) {
  q.RoundUpToInteger();
  return q;
}

}  // namespace

std::string ClaimStorageClass(const json& claim) {
  const json& annotations = Field(Field(claim, "metadata"), "annotations");
  const json& beta = Field(annotations, kBetaStorageClassAnnotation);
  if (beta.is_string()) return beta.get<std::string>();
  return Str(Field(claim, "spec"), "storageClassName");
}

std::optional<util::Quantity> ClaimStorage(const json& claim) {
  const ResourceList requests =
      ParseResourceList(Field(Field(Field(claim, "spec"), "resources"), "requests"));
  auto requested = requests.find("storage");
  if (requested == requests.end()) return std::nullopt;
  util::Quantity result = RoundedUp(requested->second);
  const ResourceList allocated =
      ParseResourceList(Field(Field(claim, "status"), "allocatedResources"));
  if (auto it = allocated.find("storage"); it != allocated.end() && it->second.Cmp(result) > 0) {
    result = RoundedUp(it->second);
  }
  return result;
}

std::set<std::string> PersistentVolumeClaimEvaluator::MatchingResources(
    const std::set<std::string>& names) const {
  std::set<std::string> out;
  for (const std::string& name : names) {
    if (name == "count/persistentvolumeclaims" || name == "persistentvolumeclaims" ||
        name == "requests.storage" ||
        name.ends_with(std::string(kStorageClassSuffix) + "persistentvolumeclaims") ||
        name.ends_with(std::string(kStorageClassSuffix) + "requests.storage")) {
      out.insert(name);
    }
  }
  return out;
}

ResourceList PersistentVolumeClaimEvaluator::Usage(const json& claim, TimePoint) const {
  ResourceList out;
  out["persistentvolumeclaims"] = util::Quantity(1);
  out["count/persistentvolumeclaims"] = util::Quantity(1);
  const std::string storage_class = ClaimStorageClass(claim);
  const std::string by_class = storage_class + std::string(kStorageClassSuffix);
  if (!storage_class.empty()) out[by_class + "persistentvolumeclaims"] = util::Quantity(1);
  if (auto storage = ClaimStorage(claim)) {
    out["requests.storage"] = *storage;
    if (!storage_class.empty()) out[by_class + "requests.storage"] = *storage;
  }
  return out;
}

}  // namespace controller::resourcequota
