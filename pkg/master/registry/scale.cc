#include "pkg/master/registry/scale.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/scale_view.h"
#include "pkg/master/registry/apps/workload.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/schemas/schemas.h"

namespace master::resources {

using nlohmann::json;

void AddScale(registry::ResourceSpec& spec, std::function<std::string(const json&)> selector) {
  if (!selector) {
    selector = [](const json& object) {
      const std::string text = FormatLabelSelector(Sub(Sub(object, "spec"), "selector"));
      return text == "<none>" ? std::string() : text;
    };
  }
  std::vector<std::string> verbs = {"get", "patch", "update"};
  for (const schemas::Resource& r : schemas::Resources(spec.GroupVersion())) {
    if (r.name == spec.plural + "/scale") verbs = r.verbs;
  }
  registry::ScalePaths paths;
  paths.selector = std::move(selector);
  spec.subresources.push_back({"scale",
                               {"autoscaling", "v1", "Scale"},
                               verbs,
                               nullptr,
                               registry::NewScaleView(std::move(paths))});
}

}  // namespace master::resources
