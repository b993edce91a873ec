#include "pkg/genericserver/admission/plugin.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"

namespace admission {

using nlohmann::json;

Awaitable<std::optional<apimachinery::Status>> Plugin::Admit(const Attributes&, json&) const {
  co_return std::nullopt;
}

Awaitable<std::optional<apimachinery::Status>> Plugin::Validate(const Attributes&,
                                                                const json&) const {
  co_return std::nullopt;
}

namespace {

Attributes AttributesOf(const registry::ResourceSpec& spec, const json& object, const json* old,
                        const registry::WriteOptions& options) {
  return {old ? Operation::kUpdate : Operation::kCreate,
          spec,
          old,
          options,
          registry::MetaString(object, "namespace"),
          registry::MetaString(object, "name")};
}

}  // namespace

registry::Admission Chain(std::vector<PluginPtr> plugins) {
  auto all = std::make_shared<const std::vector<PluginPtr>>(std::move(plugins));
  registry::MutateFunc mutate =
      [all](
          const registry::ResourceSpec& spec, json& object, const json* old,
          const registry::WriteOptions& options) -> Awaitable<std::optional<apimachinery::Status>> {
    Attributes attributes = AttributesOf(spec, object, old, options);
    Reinvocation reinvocation;
    attributes.reinvocation = &reinvocation;
    for (int pass = 0; pass < 2; ++pass) {
      for (const PluginPtr& p : *all) {
        if (!p->Handles(attributes.operation)) continue;
        if (auto denied = co_await p->Admit(attributes, object)) co_return denied;
      }
      if (!reinvocation.requested) break;
      reinvocation.second_pass = true;
      reinvocation.requested = false;
    }
    co_return std::nullopt;
  };
  registry::AdmitFunc validate =
      [all](
          const registry::ResourceSpec& spec, const json& object, const json* old,
          const registry::WriteOptions& options) -> Awaitable<std::optional<apimachinery::Status>> {
    const Attributes attributes = AttributesOf(spec, object, old, options);
    for (const PluginPtr& p : *all) {
      if (!p->Handles(attributes.operation)) continue;
      if (auto denied = co_await p->Validate(attributes, object)) co_return denied;
    }
    co_return std::nullopt;
  };
  registry::DeleteAdmitFunc delete_ =
      [all](const registry::ResourceSpec& spec, const std::string& ns, const std::string& name,
            const json& existing, const registry::DeleteOptions& options)
      -> Awaitable<std::optional<apimachinery::Status>> {
    registry::WriteOptions as_write;
    as_write.dry_run = options.dry_run;
    as_write.user = options.user;
    as_write.warnings = options.warnings;
    as_write.audit = options.audit;
    const Attributes attributes{Operation::kDelete, spec, &existing, as_write, ns, name, &options};
    json none;
    for (const PluginPtr& p : *all) {
      if (!p->Handles(Operation::kDelete)) continue;
      if (auto denied = co_await p->Admit(attributes, none)) co_return denied;
    }
    for (const PluginPtr& p : *all) {
      if (!p->Handles(Operation::kDelete)) continue;
      if (auto denied = co_await p->Validate(attributes, none)) co_return denied;
    }
    co_return std::nullopt;
  };
  return registry::Admission(std::move(mutate), std::move(validate), std::move(delete_));
}

}  // namespace admission
