// node.k8s.io/v1 runtime classes: which container runtime handler pods of the class use;
// the handler does not change.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/apimachinery/validation/names.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {

using nlohmann::json;
namespace v = apimachinery::validation;

registry::ResourceSpecPtr RuntimeClasses() {
  KindHooks hooks;
  hooks.validate = [](const json& rc) {
    registry::FieldErrors errors;
    const std::string handler = Str(rc, "handler");
    if (handler.empty()) {
      errors.push_back(v::FieldRequired("handler", ""));
    } else {
      for (const std::string& msg : v::IsDNS1123Label(handler)) {
        errors.push_back(v::FieldInvalid("handler", handler, msg));
      }
    }
    return errors;
  };
  hooks.validate_update = [](const json& rc, const json& old) {
    registry::FieldErrors errors;
    if (Str(rc, "handler") != Str(old, "handler")) {
      errors.push_back(v::FieldInvalid("handler", Str(rc, "handler"), "field is immutable"));
    }
    return errors;
  };
  auto spec = Builtin("node.k8s.io/v1", "runtimeclasses", std::move(hooks));
  spec->columns = {
      registry::NameColumn(),
      {"Handler", "string", "", "The container runtime handler.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& rc, std::chrono::system_clock::time_point now) {
    return std::vector<json>{registry::MetaString(rc, "name"), Str(rc, "handler"),
                             registry::Age(rc, now)};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
