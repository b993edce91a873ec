// storage.k8s.io/v1: storage classes, CSI drivers and nodes, volume attachments and
// storage capacities, with upstream's defaults and columns; what a provisioner or driver
// is set up with does not change.
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

constexpr char kGroupVersion[] = "storage.k8s.io/v1";

// Errors for the fields of `object` that differ from `old` (path = the field name).
registry::FieldErrors Immutable(const json& object, const json& old,
                                std::initializer_list<const char*> fields) {
  registry::FieldErrors errors;
  for (const char* field : fields) {
    if (object.value(field, json()) != old.value(field, json())) {
      errors.push_back(
          v::FieldForbidden(field, "updates to " + std::string(field) + " are forbidden."));
    }
  }
  return errors;
}

std::string Bool(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_boolean()) return "false";
  return it->get<bool>() ? "true" : "false";
}

}  // namespace

registry::ResourceSpecPtr StorageClasses() {
  KindHooks hooks;
  hooks.defaults = [](json& sc) {
    SetDefault(sc, "reclaimPolicy", "Delete");
    SetDefault(sc, "volumeBindingMode", "Immediate");
  };
  hooks.validate = [](const json& sc) {
    registry::FieldErrors errors;
    if (Str(sc, "provisioner").empty()) errors.push_back(v::FieldRequired("provisioner", ""));
    return errors;
  };
  hooks.validate_update = [](const json& sc, const json& old) {
    return Immutable(sc, old, {"parameters", "provisioner", "reclaimPolicy", "volumeBindingMode"});
  };
  auto spec = Builtin(kGroupVersion, "storageclasses", std::move(hooks));
  spec->short_names = {"sc"};
  spec->columns = {
      registry::NameColumn(),
      {"Provisioner", "string", "", "What provisions the class's volumes.", 0},
      {"ReclaimPolicy", "string", "", "What happens to a released volume.", 0},
      {"VolumeBindingMode", "string", "", "When volumes are bound to claims.", 0},
      {"AllowVolumeExpansion", "string", "", "Whether claims may grow.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& sc, std::chrono::system_clock::time_point now) {
    std::string name = registry::MetaString(sc, "name");
    const json& annotations = Sub(Sub(sc, "metadata"), "annotations");
    if (Str(annotations, "storageclass.kubernetes.io/is-default-class") == "true" ||
        Str(annotations, "storageclass.beta.kubernetes.io/is-default-class") == "true") {
      name += " (default)";
    }
    return std::vector<json>{name,
                             Str(sc, "provisioner"),
                             Str(sc, "reclaimPolicy"),
                             Str(sc, "volumeBindingMode"),
                             Bool(sc, "allowVolumeExpansion"),
                             registry::Age(sc, now)};
  };
  return Finish(std::move(spec));
}

registry::ResourceSpecPtr CSIDrivers() {
  KindHooks hooks;
  hooks.defaults = [](json& driver) {
    json& spec = Child(driver, "spec");
    SetDefault(spec, "attachRequired", true);
    SetDefault(spec, "podInfoOnMount", false);
    SetDefault(spec, "storageCapacity", false);
    SetDefault(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType");
    SetDefault(spec, "requiresRepublish", false);
    SetDefault(spec, "volumeLifecycleModes", json::array({"Persistent"}));
  };
  hooks.validate_update = [](const json& driver, const json& old) {
    return Immutable(Sub(driver, "spec"), Sub(old, "spec"), {"attachRequired"});
  };
  auto spec = Builtin(kGroupVersion, "csidrivers", std::move(hooks));
  spec->columns = {
      registry::NameColumn(),
      {"AttachRequired", "boolean", "", "Whether volumes need attaching.", 0},
      {"PodInfoOnMount", "boolean", "", "Whether the driver gets pod information.", 0},
      {"StorageCapacity", "boolean", "", "Whether capacity is tracked.", 0},
      {"TokenRequests", "string", "", "Audiences of the tokens the driver gets.", 0},
      {"RequiresRepublish", "boolean", "", "Whether volumes are republished.", 0},
      {"Modes", "string", "", "Persistent and/or Ephemeral.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& driver, std::chrono::system_clock::time_point now) {
    const json& s = Sub(driver, "spec");
    std::string audiences;
    for (const json& t : List(s, "tokenRequests")) {
      audiences += (audiences.empty() ? "" : ",") + Str(t, "audience");
    }
    std::string modes;
    for (const json& m : List(s, "volumeLifecycleModes")) {
      modes += (modes.empty() ? "" : ",") + (m.is_string() ? m.get<std::string>() : "");
    }
    return std::vector<json>{registry::MetaString(driver, "name"),
                             s.value("attachRequired", true) == true,
                             s.value("podInfoOnMount", false) == true,
                             s.value("storageCapacity", false) == true,
                             audiences.empty() ? "<unset>" : audiences,
                             s.value("requiresRepublish", false) == true,
                             modes,
                             registry::Age(driver, now)};
  };
  return Finish(std::move(spec));
}

registry::ResourceSpecPtr CSINodes() {
  auto spec = Builtin(kGroupVersion, "csinodes");
  spec->columns = {
      registry::NameColumn(),
      {"Drivers", "integer", "", "How many CSI drivers the node has.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& node, std::chrono::system_clock::time_point now) {
    return std::vector<json>{registry::MetaString(node, "name"),
                             static_cast<int64_t>(List(Sub(node, "spec"), "drivers").size()),
                             registry::Age(node, now)};
  };
  return Finish(std::move(spec));
}

registry::ResourceSpecPtr VolumeAttachments() {
  KindHooks hooks;
  hooks.unconditional_update = false;
  hooks.status.stored_metadata = registry::kResetObjectMetaForStatus;
  hooks.validate_update = [](const json& va, const json& old) {
    registry::FieldErrors errors;
    if (Sub(va, "spec") != Sub(old, "spec")) {
      errors.push_back(v::FieldInvalid("spec", "", "field is immutable"));
      errors.back().value_form = v::ValueForm::kOmitted;
    }
    return errors;
  };
  auto spec = Builtin(kGroupVersion, "volumeattachments", std::move(hooks));
  spec->columns = {
      registry::NameColumn(),
      {"Attacher", "string", "", "The driver that attaches the volume.", 0},
      {"PV", "string", "", "The persistent volume attached.", 0},
      {"Node", "string", "", "The node it is attached to.", 0},
      {"Attached", "boolean", "", "Whether the attachment is done.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& va, std::chrono::system_clock::time_point now) {
    const json& s = Sub(va, "spec");
    return std::vector<json>{registry::MetaString(va, "name"),
                             Str(s, "attacher"),
                             Str(Sub(s, "source"), "persistentVolumeName"),
                             Str(s, "nodeName"),
                             Sub(va, "status").value("attached", false) == true,
                             registry::Age(va, now)};
  };
  return Finish(std::move(spec));
}

registry::ResourceSpecPtr CSIStorageCapacities() {
  auto spec = Builtin(kGroupVersion, "csistoragecapacities");
  spec->columns = {
      registry::NameColumn(),
      {"StorageClassName", "string", "", "The storage class the capacity is for.", 0},
      {"Capacity", "string", "", "The capacity available.", 0},
  };
  spec->row = [](const json& c, std::chrono::system_clock::time_point) {
    return std::vector<json>{registry::MetaString(c, "name"), Str(c, "storageClassName"),
                             Str(c, "capacity")};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
