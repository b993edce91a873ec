#include "pkg/genericserver/admission/namespace_lifecycle.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"

namespace admission {
namespace {

using nlohmann::json;

class NamespaceLifecycle final : public Plugin {
 public:
  explicit NamespaceLifecycle(std::shared_ptr<registry::Store> namespaces)
      : namespaces_(std::move(namespaces)) {}

  Awaitable<std::optional<apimachinery::Status>> Admit(const Attributes& a, json&) const override {
    // Only creations of namespaced objects are checked.
    if (a.operation != Operation::kCreate || !a.spec.namespaced) co_return std::nullopt;
    // The watch cache first; a namespace it does not know yet is looked up for real.
    auto got = co_await namespaces_->Get("", a.ns, "0");
    if (!got && got.error().code == 404) got = co_await namespaces_->Get("", a.ns, "");
    if (!got) co_return got.error();
    const json namespace_object = registry::Parse(**got);
    const json& status = namespace_object.value("status", json::object());
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
  std::shared_ptr<registry::Store> namespaces_;
};

}  // namespace

PluginPtr NewNamespaceLifecycle(std::shared_ptr<registry::Store> namespaces) {
  return std::make_shared<NamespaceLifecycle>(std::move(namespaces));
}

}  // namespace admission
