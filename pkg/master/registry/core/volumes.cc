// core/v1 persistent volumes and claims: storage and the requests for it. Both start in
// phase Pending, with upstream's volumeMode and reclaim policy defaults.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/core/pod_defaults.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

// RWO, ROX, RWX, RWOP as kubectl abbreviates access modes.
std::string AccessModes(const json& modes) {
  std::string out;
  for (const auto& [mode, short_form] :
       std::vector<std::pair<std::string, std::string>>{{"ReadWriteOnce", "RWO"},
                                                        {"ReadOnlyMany", "ROX"},
                                                        {"ReadWriteMany", "RWX"},
                                                        {"ReadWriteOncePod", "RWOP"}}) {
    for (const json& m : modes) {
      if (m == mode) {
        out += (out.empty() ? "" : ",") + short_form;
        break;
      }
    }
  }
  return out;
}

std::string OrUnset(std::string s) { return s.empty() ? "<unset>" : s; }

void RequireAccessModes(const json& spec, registry::FieldErrors& errors) {
  if (List(spec, "accessModes").empty()) {
    errors.push_back(v::FieldRequired("spec.accessModes", ""));
  }
}

}  // namespace

registry::ResourceSpecPtr PersistentVolumes() {
  KindHooks hooks;
  hooks.defaults = [](json& pv) {
    json& spec = Child(pv, "spec");
    SetDefault(spec, "persistentVolumeReclaimPolicy", "Retain");
    SetDefault(spec, "volumeMode", "Filesystem");
    if (auto host = spec.find("hostPath"); host != spec.end() && host->is_object()) {
      SetDefault(*host, "type", "");
    }
  };
  hooks.prepare_create = [](json& pv) { pv["status"] = {{"phase", "Pending"}}; };
  hooks.validate = [](const json& pv) {
    registry::FieldErrors errors;
    const json& spec = Sub(pv, "spec");
    RequireAccessModes(spec, errors);
    if (Sub(spec, "capacity").empty()) errors.push_back(v::FieldRequired("spec.capacity", ""));
    return errors;
  };
  auto spec = Builtin("v1", "persistentvolumes", std::move(hooks));
  spec->short_names = {"pv"};
  spec->columns = {
      registry::NameColumn(),
      {"Capacity", "string", "", "The volume's size.", 0},
      {"Access Modes", "string", "", "How the volume can be mounted.", 0},
      {"Reclaim Policy", "string", "", "What happens to the volume when released.", 0},
      {"Status", "string", "", "Available, Bound, Released or Failed.", 0},
      {"Claim", "string", "", "The claim bound to the volume.", 0},
      {"StorageClass", "string", "", "The storage class of the volume.", 0},
      {"VolumeAttributesClass", "string", "", "The volume attributes class.", 0},
      {"Reason", "string", "", "Why the volume is in its phase.", 0},
      registry::AgeColumn(),
      {"VolumeMode", "string", "", "Filesystem or Block.", 1},
  };
  spec->row = [](const json& pv, std::chrono::system_clock::time_point now) {
    const json& s = Sub(pv, "spec");
    const json& claim = Sub(s, "claimRef");
    std::string claim_name;
    if (!Str(claim, "name").empty())
      claim_name = Str(claim, "namespace") + "/" + Str(claim, "name");
    return std::vector<json>{registry::MetaString(pv, "name"),
                             Str(Sub(s, "capacity"), "storage"),
                             AccessModes(List(s, "accessModes")),
                             Str(s, "persistentVolumeReclaimPolicy"),
                             Str(Sub(pv, "status"), "phase"),
                             claim_name,
                             Str(s, "storageClassName"),
                             OrUnset(Str(s, "volumeAttributesClassName")),
                             Str(Sub(pv, "status"), "reason"),
                             registry::Age(pv, now),
                             Str(s, "volumeMode")};
  };
  return Finish(std::move(spec));
}

registry::ResourceSpecPtr PersistentVolumeClaims() {
  KindHooks hooks;
  hooks.defaults = [](json& pvc) { SetDefault(Child(pvc, "spec"), "volumeMode", "Filesystem"); };
  hooks.prepare_create = [](json& pvc) { pvc["status"] = {{"phase", "Pending"}}; };
  hooks.validate = [](const json& pvc) {
    registry::FieldErrors errors;
    const json& spec = Sub(pvc, "spec");
    RequireAccessModes(spec, errors);
    if (Str(Sub(Sub(spec, "resources"), "requests"), "storage").empty()) {
      errors.push_back(v::FieldRequired("spec.resources[storage]", ""));
    }
    return errors;
  };
  auto spec = Builtin("v1", "persistentvolumeclaims", std::move(hooks));
  spec->short_names = {"pvc"};
  spec->columns = {
      registry::NameColumn(),
      {"Status", "string", "", "Pending, Bound or Lost.", 0},
      {"Volume", "string", "", "The volume bound to the claim.", 0},
      {"Capacity", "string", "", "The size of the bound volume.", 0},
      {"Access Modes", "string", "", "How the volume can be mounted.", 0},
      {"StorageClass", "string", "", "The storage class asked for.", 0},
      {"VolumeAttributesClass", "string", "", "The volume attributes class.", 0},
      registry::AgeColumn(),
      {"VolumeMode", "string", "", "Filesystem or Block.", 1},
  };
  spec->row = [](const json& pvc, std::chrono::system_clock::time_point now) {
    const json& s = Sub(pvc, "spec");
    const json& status = Sub(pvc, "status");
    const std::string phase = Str(status, "phase");
    const bool bound = !Str(s, "volumeName").empty();
    return std::vector<json>{
        registry::MetaString(pvc, "name"),
        registry::MetaString(pvc, "deletionTimestamp").empty() ? phase : std::string("Terminating"),
        Str(s, "volumeName"),
        bound ? Str(Sub(status, "capacity"), "storage") : std::string(),
        bound ? AccessModes(List(status, "accessModes")) : std::string(),
        Str(s, "storageClassName"),
        OrUnset(Str(s, "volumeAttributesClassName")),
        registry::Age(pvc, now),
        Str(s, "volumeMode")};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
