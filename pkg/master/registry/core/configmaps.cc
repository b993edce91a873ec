// core/v1 configmaps: data (strings) and binaryData (base64), 1 MiB in all, frozen by
// `immutable: true`.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/core/config_data.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

class ConfigMapStrategy final : public registry::Strategy {
 public:
  std::optional<std::string> Decode(json& cm) const override {
    std::string bad = CheckBase64Map(cm, "binaryData");
    if (!bad.empty()) return bad;
    return std::nullopt;
  }

  registry::FieldErrors Validate(const json& cm) const override {
    registry::FieldErrors errors;
    ValidateDataKeys(cm, "data", errors);
    ValidateDataKeys(cm, "binaryData", errors);
    if (cm.contains("data") && cm["data"].is_object() && cm.contains("binaryData") &&
        cm["binaryData"].is_object()) {
      for (auto it = cm["binaryData"].begin(); it != cm["binaryData"].end(); ++it) {
        if (cm["data"].contains(it.key())) {
          errors.push_back(v::FieldInvalid("binaryData[" + it.key() + "]", it.key(),
                                           "duplicate of key present in data"));
        }
      }
    }
    if (DataSize(cm, "data", false) + DataSize(cm, "binaryData", true) > kMaxDataSize) {
      errors.push_back(v::FieldTooLong("", kMaxDataSize));
    }
    return errors;
  }

  registry::FieldErrors ValidateUpdate(const json& cm, const json& old) const override {
    registry::FieldErrors errors;
    ValidateImmutable(cm, old, {"data", "binaryData"}, errors);
    for (auto& e : Validate(cm)) errors.push_back(std::move(e));
    return errors;
  }

  void Canonicalize(json& cm) const override {
    DropEmpty(cm, "data");
    DropEmpty(cm, "binaryData");
  }
};

}  // namespace

registry::ResourceSpecPtr ConfigMaps() {
  auto spec = std::make_shared<registry::ResourceSpec>();
  spec->version = "v1";
  spec->kind = "ConfigMap";
  spec->plural = "configmaps";
  spec->short_names = {"cm"};
  spec->strategy = std::make_shared<ConfigMapStrategy>();
  spec->columns = {
      registry::NameColumn(),
      {"Data", "string", "", "How many keys the config map has.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& cm, std::chrono::system_clock::time_point now) {
    return std::vector<json>{registry::MetaString(cm, "name"),
                             Count(cm, "data") + Count(cm, "binaryData"), registry::Age(cm, now)};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
