#include "pkg/master/bootstrap/authentication_configmap.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/registry/store.h"
#include "pkg/pki/pki.h"
#include "pkg/util/log.h"

namespace master::bootstrap {
namespace {

using nlohmann::json;

constexpr char kClientCA[] = "client-ca-file";
constexpr char kRequestHeaderCA[] = "requestheader-client-ca-file";
constexpr char kAllowedNames[] = "requestheader-allowed-names";
constexpr char kUsernameHeaders[] = "requestheader-username-headers";
constexpr char kGroupHeaders[] = "requestheader-group-headers";
constexpr char kExtraHeadersPrefix[] = "requestheader-extra-headers-prefix";

// A JSON string list of the existing data; absent, empty or malformed: none.
std::vector<std::string> ExistingList(const std::map<std::string, std::string>& data,
                                      const char* key) {
  auto it = data.find(key);
  if (it == data.end() || it->second.empty()) return {};
  json parsed = json::parse(it->second, nullptr, /*allow_exceptions=*/false);
  std::vector<std::string> out;
  if (parsed.is_null()) return out;  // "null" decodes to no list
  if (parsed.is_array() &&
      std::ranges::all_of(parsed, [](const json& v) { return v.is_string(); })) {
    for (const json& v : parsed) out.push_back(v.get<std::string>());
    return out;
  }
  KLOG_WARNING << kAuthenticationConfigMapNamespace << "/" << kAuthenticationConfigMapName
               << ": ignoring the malformed " << key;
  return {};
}

// Existing entries first, then the required ones; each once.
std::vector<std::string> Union(std::vector<std::string> existing,
                               const std::vector<std::string>& required) {
  std::vector<std::string> out;
  for (const std::vector<std::string>* list : {&std::as_const(existing), &required}) {
    for (const std::string& v : *list) {
      if (std::ranges::find(out, v) == out.end()) out.push_back(v);
    }
  }
  return out;
}

// The certificates of both bundles that have not expired (five minutes of slack), each once,
// existing ones first, encoded again.
std::string CombineBundles(const std::string& existing, const std::string& required,
                           const char* key) {
  const auto cutoff = std::chrono::system_clock::now() - std::chrono::minutes(5);
  std::vector<std::string> certificates;
  for (const std::string* bundle : {&existing, &required}) {
    auto split = pki::SplitBundle(*bundle);
    if (!split) {
      KLOG_WARNING << kAuthenticationConfigMapNamespace << "/" << kAuthenticationConfigMapName
                   << ": ignoring a malformed " << key << " bundle: " << split.error();
      continue;
    }
    for (pki::BundleCertificate& c : *split) {
      if (c.not_after <= cutoff) continue;
      if (std::ranges::find(certificates, c.pem) == certificates.end()) {
        certificates.push_back(std::move(c.pem));
      }
    }
  }
  std::string out;
  for (const std::string& pem : certificates) out += pem;
  return out;
}

std::string Value(const std::map<std::string, std::string>& data, const char* key) {
  auto it = data.find(key);
  return it == data.end() ? "" : it->second;
}

std::map<std::string, std::string> DataOf(const json& config_map) {
  std::map<std::string, std::string> data;
  auto it = config_map.find("data");
  if (it == config_map.end() || !it->is_object()) return data;
  for (const auto& [key, value] : it->items()) {
    if (value.is_string()) data[key] = value.get<std::string>();
  }
  return data;
}

// The ConfigMap with the data it should hold, from the stored one.
json Desired(const json& stored, const ClusterAuthenticationInfo& required) {
  json updated = stored;
  std::map<std::string, std::string> data = AuthenticationConfigMapData(DataOf(stored), required);
  if (data.empty()) {
    updated.erase("data");
  } else {
    updated["data"] = data;
  }
  return updated;
}

}  // namespace

std::string GoJSONStringList(const std::vector<std::string>& values) {
  return apimachinery::validation::GoHTMLSafeJSON(
      json(values).dump(-1, ' ', false, json::error_handler_t::replace));
}

std::map<std::string, std::string> AuthenticationConfigMapData(
    const std::map<std::string, std::string>& existing, const ClusterAuthenticationInfo& required) {
  std::map<std::string, std::string> data;
  std::string client_ca = CombineBundles(Value(existing, kClientCA), required.client_ca, kClientCA);
  if (!client_ca.empty()) data[kClientCA] = std::move(client_ca);
  std::string request_header_ca = CombineBundles(Value(existing, kRequestHeaderCA),
                                                 required.request_header_ca, kRequestHeaderCA);
  // The headers mean nothing without a CA that vouches for whoever sets them.
  if (request_header_ca.empty()) return data;
  data[kRequestHeaderCA] = std::move(request_header_ca);
  data[kUsernameHeaders] = GoJSONStringList(
      Union(ExistingList(existing, kUsernameHeaders), required.request_header_username_headers));
  data[kGroupHeaders] = GoJSONStringList(
      Union(ExistingList(existing, kGroupHeaders), required.request_header_group_headers));
  data[kExtraHeadersPrefix] = GoJSONStringList(Union(
      ExistingList(existing, kExtraHeadersPrefix), required.request_header_extra_header_prefixes));
  data[kAllowedNames] = GoJSONStringList(
      Union(ExistingList(existing, kAllowedNames), required.request_header_allowed_names));
  return data;
}

genericserver::PostStartHookFunc AuthenticationConfigMap(
    std::shared_ptr<registry::Store> namespaces, std::shared_ptr<registry::Store> config_maps,
    ClusterAuthenticationInfo required) {
  return [namespaces, config_maps, required]() -> Awaitable<std::expected<void, std::string>> {
    const std::string where = std::string(kAuthenticationConfigMapNamespace) + "/" +
                              std::string(kAuthenticationConfigMapName);
    const registry::WriteOptions options;
    // Created or updated; a few rounds in case someone else creates or deletes it meanwhile.
    for (int attempt = 0; attempt < 5; ++attempt) {
      auto got = co_await config_maps->Get(kAuthenticationConfigMapNamespace,
                                           kAuthenticationConfigMapName, "");
      if (!got && got.error().code != 404) {
        co_return std::unexpected("reading " + where + ": " + got.error().message);
      }
      if (!got) {
        json ns = {{"apiVersion", "v1"},
                   {"kind", "Namespace"},
                   {"metadata", {{"name", kAuthenticationConfigMapNamespace}}}};
        auto created_ns = co_await namespaces->Create("", std::move(ns), options);
        if (!created_ns && created_ns.error().code != 409) {
          co_return std::unexpected("creating namespace " +
                                    std::string(kAuthenticationConfigMapNamespace) + ": " +
                                    created_ns.error().message);
        }
        json object = {{"apiVersion", "v1"},
                       {"kind", "ConfigMap"},
                       {"metadata",
                        {{"name", kAuthenticationConfigMapName},
                         {"namespace", kAuthenticationConfigMapNamespace}}}};
        object = Desired(object, required);
        auto created = co_await config_maps->Create(kAuthenticationConfigMapNamespace,
                                                    std::move(object), options);
        if (created) co_return std::expected<void, std::string>();
        if (created.error().code == 409) continue;
        co_return std::unexpected("creating " + where + ": " + created.error().message);
      }
      registry::UpdateFunc update =
          [required](const json* old) -> Awaitable<registry::Result<json>> {
        // None (deleted meanwhile): the store answers NotFound and the loop creates it.
        if (!old) co_return json::object();
        co_return Desired(*old, required);
      };
      auto updated =
          co_await config_maps->Update(kAuthenticationConfigMapNamespace,
                                       kAuthenticationConfigMapName, update, options, nullptr);
      if (updated) co_return std::expected<void, std::string>();
      if (updated.error().code == 404) continue;
      co_return std::unexpected("updating " + where + ": " + updated.error().message);
    }
    co_return std::unexpected(where + " kept changing while it was written");
  };
}

}  // namespace master::bootstrap
