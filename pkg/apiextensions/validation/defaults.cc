// Upstream's v1 defaulting of a CRD (SetObjectDefaults_CustomResourceDefinition):
// names.singular from the kind, names.listKind as <kind>List, conversion strategy None,
// webhook service port 443, and status.storedVersions from the storage version.

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/crd_validation.h"
#include "pkg/apiextensions/validation/internal.h"

namespace apiextensions::validation {

using internal::Get;
using internal::Str;
using nlohmann::json;

void SetDefaults(json& crd) {
  if (!crd.is_object()) return;
  json& spec = crd["spec"];
  if (!spec.is_object()) spec = json::object();

  // (spec) names
  const std::string kind = Str(Get(spec, "names"), "kind");
  if (Str(Get(spec, "names"), "singular").empty() && !kind.empty()) {
    std::string lower = kind;
    for (char& c : lower) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    spec["names"]["singular"] = lower;
  }
  if (Str(Get(spec, "names"), "listKind").empty() && !kind.empty()) {
    spec["names"]["listKind"] = kind + "List";
  }

  // conversion, and the port of a webhook service
  if (Get(spec, "conversion") == nullptr) spec["conversion"] = json{{"strategy", "None"}};
  if (json* service = [&]() -> json* {
        json& conversion = spec["conversion"];
        if (!conversion.is_object()) return nullptr;
        auto webhook = conversion.find("webhook");
        if (webhook == conversion.end() || !webhook->is_object()) return nullptr;
        auto cc = webhook->find("clientConfig");
        if (cc == webhook->end() || !cc->is_object()) return nullptr;
        auto svc = cc->find("service");
        if (svc == cc->end() || !svc->is_object()) return nullptr;
        return &*svc;
      }()) {
    if (Get(*service, "port") == nullptr) (*service)["port"] = 443;
  }

  // status.storedVersions: the storage version, when none is recorded
  const json* stored = Get(Get(crd, "status"), "storedVersions");
  if (stored == nullptr || !stored->is_array() || stored->empty()) {
    const json* versions = Get(spec, "versions");
    if (versions != nullptr && versions->is_array()) {
      for (const json& ver : *versions) {
        if (internal::Bool(&ver, "storage")) {
          json& status = crd["status"];
          if (!status.is_object()) status = json::object();
          status["storedVersions"] = json::array({Str(&ver, "name")});
          break;
        }
      }
    }
  }
}

}  // namespace apiextensions::validation
