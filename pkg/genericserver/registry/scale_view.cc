#include "pkg/genericserver/registry/scale_view.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"

namespace registry {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

const json* At(const json& object, const std::vector<std::string>& path) {
  const json* node = &object;
  for (const std::string& key : path) {
    if (!node->is_object()) return nullptr;
    auto it = node->find(key);
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return node;
}

int64_t IntAt(const json& object, const std::vector<std::string>& path) {
  const json* v = At(object, path);
  return v && v->is_number_integer() ? v->get<int64_t>() : 0;
}

class ScaleView final : public SubresourceView {
 public:
  explicit ScaleView(ScalePaths paths) : paths_(std::move(paths)) {}

  json ToView(const json& object) const override {
    json meta = json::object();
    if (const json* m = At(object, {"metadata"})) {
      for (const char* field :
           {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
        if (m->contains(field)) meta[field] = (*m)[field];
      }
    }
    json spec = json::object();
    if (const int64_t replicas = IntAt(object, paths_.spec_replicas); replicas != 0) {
      spec["replicas"] = replicas;
    }
    json status = {{"replicas", IntAt(object, paths_.status_replicas)}};
    const std::string selector = paths_.selector ? paths_.selector(object) : std::string();
    if (!selector.empty()) status["selector"] = selector;
    return {{"apiVersion", "autoscaling/v1"},
            {"kind", "Scale"},
            {"metadata", meta},
            {"spec", spec},
            {"status", status}};
  }

  std::expected<json, apimachinery::Status> FromView(const json& view,
                                                     const json& object) const override {
    if (!view.is_object()) {
      return std::unexpected(apimachinery::NewBadRequest("the object provided is not a Scale"));
    }
    const json* replicas = At(view, {"spec", "replicas"});
    int64_t count = 0;
    if (replicas && !replicas->is_null()) {
      if (!replicas->is_number_integer()) {
        return std::unexpected(apimachinery::NewBadRequest(
            "Scale in version \"v1\" cannot be handled as a Scale: json: cannot unmarshal " +
            std::string(replicas->is_string() ? "string" : "value") +
            " into Go struct field ScaleSpec.spec.replicas of type int32"));
      }
      count = replicas->get<int64_t>();
    }
    if (count < 0) {
      const json* name = At(object, {"metadata", "name"});
      v::FieldError e = v::FieldInvalid("spec.replicas", std::to_string(count),
                                        "must be greater than or equal to 0");
      e.value_form = v::ValueForm::kVerbatim;
      return std::unexpected(v::NewInvalid(
          "autoscaling", "Scale", name && name->is_string() ? name->get<std::string>() : "", {e}));
    }
    json updated = object;
    json* node = &updated;
    for (const std::string& key : paths_.spec_replicas) {
      if (!node->is_object()) *node = json::object();
      node = &(*node)[key];
    }
    *node = count;
    // A resourceVersion in the Scale is a precondition on the object.
    if (const json* rv = At(view, {"metadata", "resourceVersion"});
        rv && rv->is_string() && !rv->get<std::string>().empty()) {
      updated["metadata"]["resourceVersion"] = *rv;
    }
    return updated;
  }

 private:
  ScalePaths paths_;
};

}  // namespace

std::shared_ptr<const SubresourceView> NewScaleView(ScalePaths paths) {
  return std::make_shared<ScaleView>(std::move(paths));
}

std::vector<std::string> SplitSimplePath(std::string_view path) {
  std::vector<std::string> out;
  if (path.starts_with('.')) path.remove_prefix(1);
  while (!path.empty()) {
    const size_t dot = path.find('.');
    out.emplace_back(path.substr(0, dot));
    if (dot == std::string_view::npos) break;
    path.remove_prefix(dot + 1);
  }
  return out;
}

}  // namespace registry
