// core/v1 pod templates, limit ranges and resource quotas: stored policy objects, with
// upstream's defaults (a limit range's default limits and requests) and table columns.
#include <map>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/core/pod_defaults.h"
#include "pkg/master/registry/core/pod_validation.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;

// A Container item's default limits come from max, its default requests from the default
// limits, then from min.
void DefaultLimitRange(json& lr) {
  auto limits = Child(lr, "spec").find("limits");
  if (limits == lr["spec"].end() || !limits->is_array()) return;
  for (json& item : *limits) {
    if (!item.is_object() || Str(item, "type") != "Container") continue;
    json fallback_default = Sub(item, "default");
    for (const auto& [key, value] : Sub(item, "max").items()) {
      if (!fallback_default.contains(key)) fallback_default[key] = value;
    }
    json request = Sub(item, "defaultRequest");
    for (const auto& [key, value] : fallback_default.items()) {
      if (!request.contains(key)) request[key] = value;
    }
    for (const auto& [key, value] : Sub(item, "min").items()) {
      if (!request.contains(key)) request[key] = value;
    }
    if (!fallback_default.empty()) item["default"] = fallback_default;
    if (!request.empty()) item["defaultRequest"] = request;
  }
}

// "pods: 1/10, requests.cpu: 0/2" for the hard limits whose name does or does not start
// with "limits.".
std::string QuotaUsage(const json& quota, bool limits) {
  const json& hard = Sub(Sub(quota, "status"), "hard").empty() ? Sub(Sub(quota, "spec"), "hard")
                                                               : Sub(Sub(quota, "status"), "hard");
  const json& used = Sub(Sub(quota, "status"), "used");
  std::string out;
  for (const auto& [name, value] : hard.items()) {
    if (name.starts_with("limits.") != limits) continue;
    std::string have = Str(used, name.c_str());
    if (have.empty()) have = "0";
    out += (out.empty() ? "" : ", ") + name + ": " + have + "/" +
           (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

}  // namespace

registry::ResourceSpecPtr PodTemplates() {
  KindHooks hooks;
  hooks.defaults = [](json& pt) { DefaultPodTemplate(Child(pt, "template")); };
  hooks.validate = [](const json& pt) {
    registry::FieldErrors errors;
    ValidatePodSpec(Sub(Sub(pt, "template"), "spec"), "template.spec", errors);
    return errors;
  };
  auto spec = Builtin("v1", "podtemplates", std::move(hooks));
  spec->columns = {
      {"Template", "string", "name", "The pod template's name.", 0},
      {"Containers", "string", "", "The names of the template's containers.", 0},
      {"Images", "string", "", "The images of the template's containers.", 0},
      {"Pod Labels", "string", "", "The labels the pods get.", 0},
  };
  spec->row = [](const json& pt, std::chrono::system_clock::time_point) {
    std::string names;
    std::string images;
    for (const json& c : List(Sub(Sub(pt, "template"), "spec"), "containers")) {
      names += (names.empty() ? "" : ",") + Str(c, "name");
      images += (images.empty() ? "" : ",") + Str(c, "image");
    }
    std::string labels;
    for (const auto& [k, value] : Sub(Sub(Sub(pt, "template"), "metadata"), "labels").items()) {
      labels += (labels.empty() ? "" : ",") + k + "=" +
                (value.is_string() ? value.get<std::string>() : "");
    }
    return std::vector<json>{registry::MetaString(pt, "name"), names, images,
                             labels.empty() ? "<none>" : labels};
  };
  return Finish(std::move(spec));
}

registry::ResourceSpecPtr LimitRanges() {
  KindHooks hooks;
  hooks.defaults = DefaultLimitRange;
  auto spec = Builtin("v1", "limitranges", std::move(hooks));
  spec->short_names = {"limits"};
  return Finish(std::move(spec));
}

registry::ResourceSpecPtr ResourceQuotas() {
  KindHooks hooks;
  hooks.prepare_create = [](json& quota) { quota["status"] = json::object(); };
  auto spec = Builtin("v1", "resourcequotas", std::move(hooks));
  spec->short_names = {"quota"};
  spec->columns = {
      registry::NameColumn(),
      registry::AgeColumn(),
      {"Request", "string", "", "Requests and counts used, out of the hard limits.", 0},
      {"Limit", "string", "", "Limits used, out of the hard limits.", 0},
  };
  spec->row = [](const json& quota, std::chrono::system_clock::time_point now) {
    return std::vector<json>{registry::MetaString(quota, "name"), registry::Age(quota, now),
                             QuotaUsage(quota, false), QuotaUsage(quota, true)};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
