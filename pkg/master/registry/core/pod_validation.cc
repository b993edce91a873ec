#include "pkg/master/registry/core/pod_validation.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/apimachinery/validation/names.h"
#include "pkg/master/registry/fields.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

void OneOf(const json& object, const char* key, const std::string& path,
           const std::vector<std::string>& allowed, registry::FieldErrors& errors) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return;
  const std::string value = *it;
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
    errors.push_back(v::FieldNotSupported(path + "." + key, value, allowed));
  }
}

void ValidateName(const std::string& name, const std::string& path, std::set<std::string>& seen,
                  registry::FieldErrors& errors) {
  if (name.empty()) {
    errors.push_back(v::FieldRequired(path, ""));
    return;
  }
  for (const std::string& msg : v::IsDNS1123Label(name)) {
    errors.push_back(v::FieldInvalid(path, name, msg));
  }
  if (!seen.insert(name).second) errors.push_back(v::FieldDuplicate(path, name));
}

void ValidatePorts(const json& c, const std::string& path, registry::FieldErrors& errors) {
  auto ports = c.find("ports");
  if (ports == c.end() || !ports->is_array()) return;
  for (size_t i = 0; i < ports->size(); ++i) {
    const json& port = (*ports)[i];
    if (!port.is_object()) continue;
    const std::string at = path + ".ports[" + std::to_string(i) + "]";
    for (const char* key : {"containerPort", "hostPort"}) {
      auto n = port.find(key);
      if (n == port.end() || !n->is_number_integer()) {
        if (std::string(key) == "containerPort") {
          errors.push_back(v::FieldRequired(at + ".containerPort", ""));
        }
        continue;
      }
      const int64_t value = *n;
      if (std::string(key) == "hostPort" && value == 0) continue;
      if (value < 1 || value > 65535) {
        errors.push_back(v::FieldInvalid(at + "." + key, std::to_string(value),
                                         "must be between 1 and 65535, inclusive"));
        errors.back().value_form = v::ValueForm::kVerbatim;
      }
    }
    OneOf(port, "protocol", at, {"SCTP", "TCP", "UDP"}, errors);
  }
}

void ValidateContainers(const json& spec, const char* list, const std::string& path,
                        const std::set<std::string>& volumes, std::set<std::string>& names,
                        registry::FieldErrors& errors) {
  auto cs = spec.find(list);
  if (cs == spec.end() || !cs->is_array()) return;
  for (size_t i = 0; i < cs->size(); ++i) {
    const json& c = (*cs)[i];
    if (!c.is_object()) continue;
    const std::string at = path + "." + list + "[" + std::to_string(i) + "]";
    ValidateName(Str(c, "name"), at + ".name", names, errors);
    if (Str(c, "image").empty()) errors.push_back(v::FieldRequired(at + ".image", ""));
    OneOf(c, "imagePullPolicy", at, {"Always", "IfNotPresent", "Never"}, errors);
    // Only init containers take a restartPolicy, and only Always (sidecars).
    if (c.contains("restartPolicy") && !c["restartPolicy"].is_null()) {
      if (std::string(list) == "initContainers") {
        OneOf(c, "restartPolicy", at, {"Always"}, errors);
      } else {
        errors.push_back(
            v::FieldForbidden(at + ".restartPolicy", "may not be set for non-init containers"));
      }
    }
    OneOf(c, "terminationMessagePolicy", at, {"File", "FallbackToLogsOnError"}, errors);
    ValidatePorts(c, at, errors);
    if (auto env = c.find("env"); env != c.end() && env->is_array()) {
      for (size_t e = 0; e < env->size(); ++e) {
        if ((*env)[e].is_object() && Str((*env)[e], "name").empty()) {
          errors.push_back(v::FieldRequired(at + ".env[" + std::to_string(e) + "].name", ""));
        }
      }
    }
    if (auto mounts = c.find("volumeMounts"); mounts != c.end() && mounts->is_array()) {
      for (size_t m = 0; m < mounts->size(); ++m) {
        const json& mount = (*mounts)[m];
        if (!mount.is_object()) continue;
        const std::string mat = at + ".volumeMounts[" + std::to_string(m) + "]";
        const std::string name = Str(mount, "name");
        if (name.empty()) {
          errors.push_back(v::FieldRequired(mat + ".name", ""));
        } else if (!volumes.contains(name)) {
          errors.push_back(v::FieldNotFound(mat + ".name", name));
        }
        if (Str(mount, "mountPath").empty()) {
          errors.push_back(v::FieldRequired(mat + ".mountPath", ""));
        }
      }
    }
  }
}

}  // namespace

void ValidatePodSpec(const json& spec, const std::string& path, registry::FieldErrors& errors,
                     const std::vector<std::string>& claims) {
  if (!spec.is_object()) return;
  std::set<std::string> volumes;
  if (auto vs = spec.find("volumes"); vs != spec.end() && vs->is_array()) {
    for (size_t i = 0; i < vs->size(); ++i) {
      if (!(*vs)[i].is_object()) continue;
      ValidateName(Str((*vs)[i], "name"), path + ".volumes[" + std::to_string(i) + "].name",
                   volumes, errors);
    }
  }
  volumes.insert(claims.begin(), claims.end());
  auto containers = spec.find("containers");
  if (containers == spec.end() || !containers->is_array() || containers->empty()) {
    errors.push_back(v::FieldRequired(path + ".containers", ""));
  }
  std::set<std::string> names;
  ValidateContainers(spec, "initContainers", path, volumes, names, errors);
  ValidateContainers(spec, "containers", path, volumes, names, errors);
  OneOf(spec, "restartPolicy", path, {"Always", "OnFailure", "Never"}, errors);
  OneOf(spec, "dnsPolicy", path, {"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"},
        errors);
  if (auto deadline = spec.find("activeDeadlineSeconds");
      deadline != spec.end() && deadline->is_number_integer() && deadline->get<int64_t>() <= 0) {
    errors.push_back(v::FieldInvalid(path + ".activeDeadlineSeconds", deadline->dump(),
                                     "must be between 1 and 2147483647, inclusive"));
    errors.back().value_form = v::ValueForm::kVerbatim;
  }
}

void ValidateRestartPolicy(const json& spec, const std::string& path,
                           const std::vector<std::string>& allowed, registry::FieldErrors& errors) {
  if (!spec.is_object()) return;
  const std::string policy = Str(spec, "restartPolicy");
  if (policy.empty()) return;
  if (std::find(allowed.begin(), allowed.end(), policy) == allowed.end()) {
    errors.push_back(v::FieldNotSupported(path + ".restartPolicy", policy, allowed));
  }
}

}  // namespace master::resources
