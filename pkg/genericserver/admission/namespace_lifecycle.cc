#include "pkg/genericserver/admission/namespace_lifecycle.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"

namespace admission {
namespace {

using nlohmann::json;

class NamespaceLifecycle final : public Plugin {
 public:
  explicit NamespaceLifecycle(std::shared_ptr<const Stores> stores) : stores_(std::move(stores)) {}

  Awaitable<std::optional<apimachinery::Status>> Admit(const Attributes& a, json&) const override {
    // Only creations of namespaced objects are checked.
    if (a.operation != Operation::kCreate || !a.spec.namespaced) co_return std::nullopt;
    auto namespaces = stores_->Get("namespaces");
    if (!namespaces) co_return apimachinery::NewInternalError("no namespace store");
    auto got = co_await Lookup(namespaces, "", a.ns);
    if (!got) co_return got.error();
    const json& status = got->value("status", json::object());
    if (!status.is_object() || status.value("phase", "") != "Terminating") co_return std::nullopt;
    apimachinery::Status denied = apimachinery::NewForbidden(
        a.spec.Resource(), a.name,
        "unable to create new content in namespace " + a.ns + " because it is being terminated");
    denied.details->causes.push_back({"NamespaceTerminating",
                                      "namespace " + a.ns + " is being terminated",
                                      "metadata.namespace"});
    co_return denied;
  }

 private:
  std::shared_ptr<const Stores> stores_;
};

}  // namespace

PluginPtr NewNamespaceLifecycle(std::shared_ptr<const Stores> stores) {
  return std::make_shared<NamespaceLifecycle>(std::move(stores));
}

}  // namespace admission
