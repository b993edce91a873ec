// apps/v1 controller revisions: immutable snapshots of a controller's template; only
// metadata may change after creation.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

// kind.group/name of the controlling owner, as kubectl shows it.
std::string Controller(const json& revision) {
  for (const json& ref : List(Sub(revision, "metadata"), "ownerReferences")) {
    if (ref.is_object() && ref.value("controller", false) == true) {
      std::string api_version = Str(ref, "apiVersion");
      const size_t slash = api_version.find('/');
      std::string kind = Str(ref, "kind");
      if (slash != std::string::npos) kind += "." + api_version.substr(0, slash);
      return kind + "/" + Str(ref, "name");
    }
  }
  return "<none>";
}

}  // namespace

registry::ResourceSpecPtr ControllerRevisions() {
  KindHooks hooks;
  hooks.validate = [](const json& revision) {
    registry::FieldErrors errors;
    if (Int(revision, "revision") < 0) {
      errors.push_back(v::FieldInvalid("revision", std::to_string(Int(revision, "revision")),
                                       "must be greater than or equal to 0"));
      errors.back().value_form = v::ValueForm::kVerbatim;
    }
    return errors;
  };
  hooks.validate_update = [](const json& revision, const json& old) {
    registry::FieldErrors errors;
    if (revision.value("data", json()) != old.value("data", json())) {
      errors.push_back(v::FieldForbidden("data", "field is immutable"));
    }
    return errors;
  };
  auto spec = Builtin("apps/v1", "controllerrevisions", std::move(hooks));
  spec->columns = {
      registry::NameColumn(),
      {"Controller", "string", "", "The controller the revision belongs to.", 0},
      {"Revision", "integer", "", "The revision number.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& revision, std::chrono::system_clock::time_point now) {
    return std::vector<json>{registry::MetaString(revision, "name"), Controller(revision),
                             Int(revision, "revision"), registry::Age(revision, now)};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
