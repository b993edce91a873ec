#include "pkg/master/registry/builtin.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "pkg/master/schemas/schemas.h"

namespace master::resources {
namespace {

using nlohmann::json;

class HookStrategy final : public registry::Strategy {
 public:
  HookStrategy(KindHooks hooks, bool status) : hooks_(std::move(hooks)), status_(status) {}

  void Default(json& object) const override {
    if (hooks_.defaults) hooks_.defaults(object);
  }
  void PrepareForCreate(json& object) const override {
    Strategy::PrepareForCreate(object);
    if (hooks_.prepare_create) hooks_.prepare_create(object);
  }
  registry::FieldErrors Validate(const json& object) const override {
    return hooks_.validate ? hooks_.validate(object) : registry::FieldErrors{};
  }
  registry::FieldErrors ValidateUpdate(const json& object, const json& old) const override {
    registry::FieldErrors errors;
    if (hooks_.validate_update) errors = hooks_.validate_update(object, old);
    for (auto& e : Validate(object)) errors.push_back(std::move(e));
    return errors;
  }
  bool TracksGeneration() const override { return hooks_.generation; }
  bool HasStatusSubresource() const override { return status_; }
  bool AllowCreateOnUpdate() const override { return hooks_.create_on_update; }
  bool AllowUnconditionalUpdate() const override { return hooks_.unconditional_update; }
  bool GarbageCollected() const override { return hooks_.garbage_collected; }
  apimachinery::validation::NameRule Names() const override { return hooks_.names; }

 private:
  KindHooks hooks_;
  bool status_;
};

}  // namespace

std::shared_ptr<registry::Strategy> MakeStrategy(KindHooks hooks, bool status_subresource) {
  return std::make_shared<HookStrategy>(std::move(hooks), status_subresource);
}

std::shared_ptr<registry::ResourceSpec> Builtin(std::string_view group_version,
                                                std::string_view plural, KindHooks hooks) {
  auto spec = std::make_shared<registry::ResourceSpec>();
  const schemas::Resource* main = nullptr;
  const schemas::Resource* status = nullptr;
  const auto resources = schemas::Resources(group_version);
  for (const schemas::Resource& r : resources) {
    if (r.name == plural) main = &r;
    if (r.name == std::string(plural) + "/status") status = &r;
  }
  if (!main) {
    throw std::logic_error("no built-in resource " + std::string(plural) + " in " +
                           std::string(group_version));
  }
  spec->group = main->group;
  spec->version = main->version;
  spec->kind = main->kind;
  spec->plural = main->name;
  spec->namespaced = main->namespaced;
  spec->verbs = main->verbs;
  const bool has_status = status != nullptr;
  if (has_status) {
    registry::StatusOptions options = hooks.status;
    options.allow_unconditional_update = hooks.unconditional_update;
    spec->subresources.push_back({"status",
                                  {spec->group, spec->version, spec->kind},
                                  status->verbs,
                                  std::make_shared<registry::StatusStrategy>(std::move(options))});
  }
  spec->strategy = MakeStrategy(std::move(hooks), has_status);
  return spec;
}

}  // namespace master::resources
