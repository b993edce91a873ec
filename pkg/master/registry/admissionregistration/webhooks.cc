// admissionregistration.k8s.io/v1 mutating and validating webhook configurations:
// stored and defaulted as upstream (Fail, Equivalent, empty selectors, 10 s, port 443);
// calling the webhooks comes with admission.
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/core/pod_defaults.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

void DefaultWebhooks(json& config, bool mutating) {
  auto hooks = config.find("webhooks");
  if (hooks == config.end() || !hooks->is_array()) return;
  for (json& hook : *hooks) {
    if (!hook.is_object()) continue;
    SetDefault(hook, "failurePolicy", "Fail");
    SetDefault(hook, "matchPolicy", "Equivalent");
    SetDefault(hook, "namespaceSelector", json::object());
    SetDefault(hook, "objectSelector", json::object());
    SetDefault(hook, "timeoutSeconds", 10);
    if (mutating) SetDefault(hook, "reinvocationPolicy", "Never");
    if (auto rules = hook.find("rules"); rules != hook.end() && rules->is_array()) {
      for (json& rule : *rules) {
        if (rule.is_object()) SetDefault(rule, "scope", "*");
      }
    }
    json& client = Child(hook, "clientConfig");
    if (auto service = client.find("service"); service != client.end() && service->is_object()) {
      SetDefault(*service, "port", 443);
    }
  }
}

registry::FieldErrors Validate(const json& config) {
  registry::FieldErrors errors;
  const json& hooks = List(config, "webhooks");
  std::set<std::string> names;
  for (size_t i = 0; i < hooks.size(); ++i) {
    const json& hook = hooks[i];
    const std::string at = "webhooks[" + std::to_string(i) + "]";
    const std::string name = Str(hook, "name");
    if (name.empty()) {
      errors.push_back(v::FieldRequired(at + ".name", ""));
    } else if (!names.insert(name).second) {
      errors.push_back(v::FieldDuplicate(at + ".name", name));
    }
    const std::string effects = Str(hook, "sideEffects");
    if (effects != "None" && effects != "NoneOnDryRun") {
      errors.push_back(
          v::FieldNotSupported(at + ".sideEffects", effects, {"None", "NoneOnDryRun"}));
    }
    if (List(hook, "admissionReviewVersions").empty()) {
      errors.push_back(v::FieldRequired(at + ".admissionReviewVersions",
                                        "must specify one of \"v1\", \"v1beta1\""));
    }
    const json& client = Sub(hook, "clientConfig");
    if (client.contains("url") == client.contains("service")) {
      errors.push_back(
          v::FieldRequired(at + ".clientConfig", "exactly one of url or service is required"));
    }
  }
  return errors;
}

std::shared_ptr<registry::ResourceSpec> WebhookConfigurations(const char* plural, bool mutating) {
  KindHooks hooks;
  hooks.defaults = [mutating](json& config) { DefaultWebhooks(config, mutating); };
  hooks.validate = Validate;
  hooks.generation = true;
  auto spec = Builtin("admissionregistration.k8s.io/v1", plural, std::move(hooks));
  spec->categories = {"api-extensions"};
  spec->columns = {
      registry::NameColumn(),
      {"Webhooks", "integer", "", "How many webhooks the configuration has.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& config, std::chrono::system_clock::time_point now) {
    return std::vector<json>{registry::MetaString(config, "name"),
                             static_cast<int64_t>(List(config, "webhooks").size()),
                             registry::Age(config, now)};
  };
  return spec;
}

}  // namespace

registry::ResourceSpecPtr MutatingWebhookConfigurations() {
  return Finish(WebhookConfigurations("mutatingwebhookconfigurations", true));
}
registry::ResourceSpecPtr ValidatingWebhookConfigurations() {
  return Finish(WebhookConfigurations("validatingwebhookconfigurations", false));
}

}  // namespace master::resources
