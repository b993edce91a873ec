// coordination.k8s.io/v1 leases: who holds a lock and for how long (leader election,
// node heartbeats in kube-node-lease).
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

const json& LeaseSpec(const json& lease) {
  static const json empty = json::object();
  auto it = lease.find("spec");
  return it != lease.end() && it->is_object() ? *it : empty;
}

class LeaseStrategy final : public registry::Strategy {
 public:
  // As upstream: a PUT may create a lease, and an update must name the version it replaces.
  bool AllowCreateOnUpdate() const override { return true; }
  bool AllowUnconditionalUpdate() const override { return false; }
  registry::FieldErrors Validate(const json& lease) const override {
    registry::FieldErrors errors;
    const json& spec = LeaseSpec(lease);
    auto duration = spec.find("leaseDurationSeconds");
    if (duration != spec.end() && duration->is_number_integer() && duration->get<int64_t>() <= 0) {
      errors.push_back(
          v::FieldInvalid("spec.leaseDurationSeconds", duration->dump(), "must be greater than 0"));
      errors.back().value_form = v::ValueForm::kVerbatim;
    }
    auto transitions = spec.find("leaseTransitions");
    if (transitions != spec.end() && transitions->is_number_integer() &&
        transitions->get<int64_t>() < 0) {
      errors.push_back(v::FieldInvalid("spec.leaseTransitions", transitions->dump(),
                                       "must be greater than or equal to 0"));
      errors.back().value_form = v::ValueForm::kVerbatim;
    }
    return errors;
  }
};

}  // namespace

registry::ResourceSpecPtr Leases() {
  auto spec = std::make_shared<registry::ResourceSpec>();
  spec->group = "coordination.k8s.io";
  spec->version = "v1";
  spec->kind = "Lease";
  spec->plural = "leases";
  spec->strategy = std::make_shared<LeaseStrategy>();
  spec->columns = {
      registry::NameColumn(),
      {"Holder", "string", "", "Who holds the lease now.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& lease, std::chrono::system_clock::time_point now) {
    const json& s = LeaseSpec(lease);
    auto holder = s.find("holderIdentity");
    return std::vector<json>{registry::MetaString(lease, "name"),
                             holder != s.end() && holder->is_string() ? *holder : json(""),
                             registry::Age(lease, now)};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
