#include "pkg/master/registry/scale.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/master/registry/apps/workload.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/schemas/schemas.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

class ScaleView final : public registry::SubresourceView {
 public:
  explicit ScaleView(std::function<std::string(const json&)> selector)
      : selector_(std::move(selector)) {}

  json ToView(const json& object) const override {
    json meta = json::object();
    const json& m = Sub(object, "metadata");
    for (const char* field : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
      if (m.contains(field)) meta[field] = m[field];
    }
    json spec = json::object();
    if (Int(Sub(object, "spec"), "replicas") != 0)
      spec["replicas"] = Int(Sub(object, "spec"), "replicas");
    json status = {{"replicas", Int(Sub(object, "status"), "replicas")}};
    const std::string selector = selector_(object);
    if (!selector.empty()) status["selector"] = selector;
    return {{"apiVersion", "autoscaling/v1"},
            {"kind", "Scale"},
            {"metadata", meta},
            {"spec", spec},
            {"status", status}};
  }

  std::expected<json, apimachinery::Status> FromView(const json& view,
                                                     const json& object) const override {
    const std::string name = Str(Sub(object, "metadata"), "name");
    if (!view.is_object()) {
      return std::unexpected(apimachinery::NewBadRequest("the object provided is not a Scale"));
    }
    const json& spec = Sub(view, "spec");
    auto replicas = spec.find("replicas");
    int64_t count = 0;
    if (replicas != spec.end() && !replicas->is_null()) {
      if (!replicas->is_number_integer()) {
        return std::unexpected(apimachinery::NewBadRequest(
            "Scale in version \"v1\" cannot be handled as a Scale: json: cannot unmarshal " +
            std::string(replicas->is_string() ? "string" : "value") +
            " into Go struct field ScaleSpec.spec.replicas of type int32"));
      }
      count = *replicas;
    }
    if (count < 0) {
      v::FieldError e = v::FieldInvalid("spec.replicas", std::to_string(count),
                                        "must be greater than or equal to 0");
      e.value_form = v::ValueForm::kVerbatim;
      return std::unexpected(v::NewInvalid("autoscaling", "Scale", name, {e}));
    }
    json updated = object;
    updated["spec"]["replicas"] = count;
    // A resourceVersion in the Scale is a precondition on the object.
    const std::string rv = Str(Sub(view, "metadata"), "resourceVersion");
    if (!rv.empty()) updated["metadata"]["resourceVersion"] = rv;
    return updated;
  }

 private:
  std::function<std::string(const json&)> selector_;
};

}  // namespace

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
  spec.subresources.push_back({"scale",
                               {"autoscaling", "v1", "Scale"},
                               verbs,
                               nullptr,
                               std::make_shared<ScaleView>(std::move(selector))});
}

}  // namespace master::resources
