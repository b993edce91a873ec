// core/v1 serviceaccounts: an identity for workloads. References to secrets keep only
// their names, as upstream stores them; tokens come from the token subresource.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/core/serviceaccount_token.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;

// Each entry of `secrets` reduced to {"name": ...}, as upstream's strategy does on create
// and update.
void KeepSecretNames(json& sa) {
  auto secrets = sa.find("secrets");
  if (secrets == sa.end() || !secrets->is_array()) return;
  for (json& ref : *secrets) {
    if (!ref.is_object()) continue;
    json name_only = json::object();
    if (auto name = ref.find("name"); name != ref.end()) name_only["name"] = *name;
    ref = std::move(name_only);
  }
}

class ServiceAccountStrategy final : public registry::Strategy {
 public:
  void PrepareForCreate(json& sa) const override { KeepSecretNames(sa); }
  void PrepareForUpdate(json& sa, const json&) const override { KeepSecretNames(sa); }
  void Canonicalize(json& sa) const override {
    for (const char* list : {"secrets", "imagePullSecrets"}) {
      if (auto it = sa.find(list); it != sa.end() && (it->is_null() || it->empty())) sa.erase(it);
    }
  }
};

}  // namespace

registry::ResourceSpecPtr ServiceAccounts(const master::Config& master, BoundObjectStores bound) {
  auto spec = std::make_shared<registry::ResourceSpec>();
  spec->version = "v1";
  spec->kind = "ServiceAccount";
  spec->plural = "serviceaccounts";
  spec->short_names = {"sa"};
  spec->strategy = std::make_shared<ServiceAccountStrategy>();
  if (!master.service_account_signing_key.empty()) {
    spec->subresources.push_back(ServiceAccountToken(
        {master.service_account_signing_key, master.service_account_issuer, master.api_audiences,
         std::move(bound.pods), std::move(bound.secrets), std::move(bound.nodes)}));
  }
  spec->columns = {
      registry::NameColumn(),
      {"Secrets", "string", "", "How many secrets the service account references.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& sa, std::chrono::system_clock::time_point now) {
    auto secrets = sa.find("secrets");
    const size_t count = secrets != sa.end() && secrets->is_array() ? secrets->size() : 0;
    return std::vector<json>{registry::MetaString(sa, "name"), count, registry::Age(sa, now)};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
