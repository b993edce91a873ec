#include "pkg/genericserver/admission/namespace_lifecycle.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"

namespace admission {

using nlohmann::json;

registry::AdmitFunc NamespaceLifecycle(std::shared_ptr<registry::Store> namespaces) {
  return [namespaces](
             const registry::ResourceSpec& spec, const json& object, const json* old,
             const registry::WriteOptions&) -> Awaitable<std::optional<apimachinery::Status>> {
    // Only creations of namespaced objects are checked.
    if (old || !spec.namespaced) co_return std::nullopt;
    const std::string ns = registry::MetaString(object, "namespace");
    // The watch cache first; a namespace it does not know yet is looked up for real.
    auto got = co_await namespaces->Get("", ns, "0");
    if (!got && got.error().code == 404) got = co_await namespaces->Get("", ns, "");
    if (!got) co_return got.error();
    const json namespace_object = registry::Parse(**got);
    const json& status = namespace_object.value("status", json::object());
    if (!status.is_object() || status.value("phase", "") != "Terminating") co_return std::nullopt;
    apimachinery::Status denied = apimachinery::NewForbidden(
        spec.Resource(), registry::MetaString(object, "name"),
        "unable to create new content in namespace " + ns + " because it is being terminated");
    denied.details->causes.push_back(
        {"NamespaceTerminating", "namespace " + ns + " is being terminated", "metadata.namespace"});
    co_return denied;
  };
}

}  // namespace admission
