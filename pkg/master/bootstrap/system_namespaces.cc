#include "pkg/master/bootstrap/system_namespaces.h"

#include <nlohmann/json.hpp>

namespace master::bootstrap {

genericserver::PostStartHookFunc SystemNamespaces(std::shared_ptr<registry::Store> namespaces) {
  return [namespaces]() -> Awaitable<std::expected<void, std::string>> {
    for (const char* name : kSystemNamespaces) {
      nlohmann::json object = {
          {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
      registry::WriteOptions options;
      auto created = co_await namespaces->Create("", std::move(object), options);
      if (!created && created.error().code != 409) {
        co_return std::unexpected("creating namespace " + std::string(name) + ": " +
                                  created.error().message);
      }
    }
    co_return std::expected<void, std::string>();
  };
}

}  // namespace master::bootstrap
