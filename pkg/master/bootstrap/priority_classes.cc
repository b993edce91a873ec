#include "pkg/master/bootstrap/priority_classes.h"

#include <nlohmann/json.hpp>

namespace master::bootstrap {

genericserver::PostStartHookFunc SystemPriorityClasses(
    std::shared_ptr<registry::Store> priority_classes) {
  return [priority_classes]() -> Awaitable<std::expected<void, std::string>> {
    struct SystemClass {
      const char* name;
      int64_t value;
      const char* description;
    };
    static constexpr SystemClass kClasses[] = {
        {"system-node-critical", 2000001000,
         "Used for system critical pods that must not be moved from their current node."},
        {"system-cluster-critical", 2000000000,
         "Used for system critical pods that must run in the cluster, but can be moved to "
         "another node if necessary."},
    };
    for (const SystemClass& c : kClasses) {
      nlohmann::json object = {{"apiVersion", "scheduling.k8s.io/v1"},
                               {"kind", "PriorityClass"},
                               {"metadata", {{"name", c.name}}},
                               {"value", c.value},
                               {"description", c.description}};
      const registry::WriteOptions options;
      auto created = co_await priority_classes->Create("", std::move(object), options);
      if (!created && created.error().code != 409) {
        co_return std::unexpected("creating priority class " + std::string(c.name) + ": " +
                                  created.error().message);
      }
    }
    co_return std::expected<void, std::string>();
  };
}

}  // namespace master::bootstrap
