#include "pkg/aggregator/apiservice_table.h"

#include <nlohmann/json.hpp>

#include "pkg/util/base64.h"

namespace aggregator {

using nlohmann::json;

namespace {

std::string Str(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

int Int(const json& object, const char* key, int fallback) {
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

void ReadAvailable(const json& apiservice, APIServiceInfo& info) {
  const json status = apiservice.value("status", json::object());
  for (const json& c : status.value("conditions", json::array())) {
    if (c.is_object() && Str(c, "type") == "Available") {
      info.available_status = Str(c, "status");
      info.available_reason = Str(c, "reason");
      info.available_message = Str(c, "message");
    }
  }
  info.available = info.available_status == "True";
}

std::vector<std::string> Strings(const json& object, const char* key) {
  std::vector<std::string> out;
  auto it = object.find(key);
  if (it == object.end() || !it->is_array()) return out;
  for (const json& s : *it) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
}

}  // namespace

std::string APIServiceInfo::ServerName() const {
  return service ? service->name + "." + service->ns + ".svc" : "";
}

void APIServiceTable::Upsert(const json& apiservice) {
  auto info = std::make_shared<APIServiceInfo>();
  const json meta = apiservice.value("metadata", json::object());
  const json spec = apiservice.value("spec", json::object());
  info->name = Str(meta, "name");
  info->group = Str(spec, "group");
  info->version = Str(spec, "version");
  info->group_priority = Int(spec, "groupPriorityMinimum", 0);
  info->version_priority = Int(spec, "versionPriority", 0);
  info->spec = spec.dump();
  ReadAvailable(apiservice, *info);
  if (auto svc = spec.find("service"); svc != spec.end() && svc->is_object()) {
    info->service =
        ServiceReference{Str(*svc, "namespace"), Str(*svc, "name"), Int(*svc, "port", 443)};
    if (APIServiceInfoPtr before = Get(info->name); before && before->spec == info->spec) {
      info->tls = before->tls;  // a status change: the same TLS settings
      info->tls_error = before->tls_error;
    } else {
      transport::TLSClientConfig tls;
      tls.insecure_skip_verify = spec.value("insecureSkipTLSVerify", false);
      if (const std::string bundle = Str(spec, "caBundle"); !bundle.empty()) {
        auto pem = util::Base64Decode(bundle);
        if (pem) tls.ca_pem = std::move(*pem);
      }
      tls.cert_pem = client_cert_pem_;
      tls.key_pem = client_key_pem_;
      auto client = transport::TLSClient::New(tls);
      if (client) {
        info->tls = std::move(*client);
      } else {
        info->tls_error = client.error();
      }
    }
  }
  const std::string name = info->name;
  std::lock_guard lock(mu_);
  by_name_[name] = std::move(info);
}

void APIServiceTable::Remove(const std::string& name) {
  std::lock_guard lock(mu_);
  by_name_.erase(name);
  resources_.erase(name);
  openapi_.erase(name);
  openapi_v2_.erase(name);
}

void APIServiceTable::Clear() {
  std::lock_guard lock(mu_);
  by_name_.clear();
}

APIServiceInfoPtr APIServiceTable::Find(std::string_view group, std::string_view version) const {
  std::lock_guard lock(mu_);
  auto it = by_name_.find(std::string(version) + "." + std::string(group));
  return it == by_name_.end() ? nullptr : it->second;
}

APIServiceInfoPtr APIServiceTable::Get(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<APIServiceInfoPtr> APIServiceTable::All() const {
  std::lock_guard lock(mu_);
  std::vector<APIServiceInfoPtr> out;
  for (const auto& [name, info] : by_name_) out.push_back(info);
  return out;
}

bool APIServiceTable::HasRemoteGroup(std::string_view group) const {
  std::lock_guard lock(mu_);
  for (const auto& [name, info] : by_name_) {
    if (info->group == group && info->service) return true;
  }
  return false;
}

void APIServiceTable::SetResources(const std::string& name,
                                   std::vector<endpoints::APIResource> resources) {
  std::lock_guard lock(mu_);
  resources_[name] = std::move(resources);
}

std::optional<std::vector<endpoints::APIResource>> APIServiceTable::Resources(
    const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = resources_.find(name);
  if (it == resources_.end()) return std::nullopt;
  return it->second;
}

void APIServiceTable::SetOpenAPI(const std::string& name,
                                 std::shared_ptr<const OpenAPIDocument> document) {
  std::lock_guard lock(mu_);
  openapi_[name] = std::move(document);
}

std::shared_ptr<const OpenAPIDocument> APIServiceTable::OpenAPI(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = openapi_.find(name);
  return it == openapi_.end() ? nullptr : it->second;
}

void APIServiceTable::SetOpenAPIV2(const std::string& name,
                                   std::shared_ptr<const OpenAPIV2Document> document) {
  std::lock_guard lock(mu_);
  openapi_v2_[name] = std::move(document);
}

std::shared_ptr<const OpenAPIV2Document> APIServiceTable::OpenAPIV2(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = openapi_v2_.find(name);
  return it == openapi_v2_.end() ? nullptr : it->second;
}

std::optional<std::vector<endpoints::APIResource>> ParseAPIResourceList(const std::string& body) {
  const json list = json::parse(body, nullptr, false);
  if (!list.is_object() || !list.contains("resources") || !list["resources"].is_array()) {
    return std::nullopt;
  }
  std::vector<endpoints::APIResource> out;
  for (const json& r : list["resources"]) {
    if (!r.is_object()) continue;
    endpoints::APIResource resource;
    resource.name = Str(r, "name");
    resource.singular_name = Str(r, "singularName");
    resource.namespaced = r.value("namespaced", false);
    resource.group = Str(r, "group");
    resource.version = Str(r, "version");
    resource.kind = Str(r, "kind");
    resource.verbs = Strings(r, "verbs");
    resource.short_names = Strings(r, "shortNames");
    resource.categories = Strings(r, "categories");
    resource.storage_version_hash = Str(r, "storageVersionHash");
    if (!resource.name.empty()) out.push_back(std::move(resource));
  }
  return out;
}

}  // namespace aggregator
