#pragma once
// What the aggregator knows of each APIService, kept current by the APIService watch and
// read on every request: which group-versions are remote, where they are, whether they are
// available, and what their servers last said in discovery. Thread-safe; readers get
// immutable snapshots.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/endpoints/discovery.h"
#include "pkg/genericserver/transport/https_client.h"

namespace aggregator {

struct ServiceReference {
  std::string ns;
  std::string name;
  int port = 443;
};

struct APIServiceInfo {
  std::string name;  // "<version>.<group>"
  std::string spec;  // the spec as stored (JSON): tells a change of spec from one of status
  std::string group;
  std::string version;
  int group_priority = 0;
  int version_priority = 0;
  std::optional<ServiceReference> service;  // none: served locally by the chain
  // Remote only: the TLS settings of calls to it (caBundle or insecureSkipTLSVerify, the
  // proxy's client certificate), or why they could not be built.
  std::shared_ptr<const transport::TLSClient> tls;
  std::string tls_error;
  // Its Available condition as stored (empty when it has none).
  std::string available_status;
  std::string available_reason;
  std::string available_message;
  bool available = false;  // available_status is "True"
  // The name its serving certificate must carry: "<service>.<namespace>.svc".
  std::string ServerName() const;
};
using APIServiceInfoPtr = std::shared_ptr<const APIServiceInfo>;

// A remote group-version's OpenAPI v3 document as its server serves it.
struct OpenAPIDocument {
  std::string url;  // the server's serverRelativeURL for it (with its hash)
  std::string body;
};

// A remote server's /openapi/v2 document (JSON) as it served it, with its ETag (empty when
// it sent none).
struct OpenAPIV2Document {
  std::string etag;
  std::string body;
};

class APIServiceTable {
 public:
  // `client_cert_pem`/`client_key_pem`: the proxy's client certificate (may be empty).
  APIServiceTable(std::string client_cert_pem, std::string client_key_pem)
      : client_cert_pem_(std::move(client_cert_pem)), client_key_pem_(std::move(client_key_pem)) {}

  // From a stored APIService object.
  void Upsert(const nlohmann::json& apiservice);
  void Remove(const std::string& name);
  void Clear();

  APIServiceInfoPtr Find(std::string_view group, std::string_view version) const;
  APIServiceInfoPtr Get(const std::string& name) const;
  std::vector<APIServiceInfoPtr> All() const;
  // Whether some APIService of the group is remote: /apis/<group> is the aggregator's then.
  bool HasRemoteGroup(std::string_view group) const;

  // The resources a remote group-version's server listed in its discovery (kept from the
  // last successful availability check), by APIService name.
  void SetResources(const std::string& name, std::vector<endpoints::APIResource> resources);
  std::optional<std::vector<endpoints::APIResource>> Resources(const std::string& name) const;
  // Its OpenAPI v3 document, likewise (nullptr: none).
  void SetOpenAPI(const std::string& name, std::shared_ptr<const OpenAPIDocument> document);
  std::shared_ptr<const OpenAPIDocument> OpenAPI(const std::string& name) const;
  // Its server's /openapi/v2 document, likewise.
  void SetOpenAPIV2(const std::string& name, std::shared_ptr<const OpenAPIV2Document> document);
  std::shared_ptr<const OpenAPIV2Document> OpenAPIV2(const std::string& name) const;

 private:
  std::string client_cert_pem_;
  std::string client_key_pem_;
  mutable std::mutex mu_;
  std::map<std::string, APIServiceInfoPtr> by_name_;
  std::map<std::string, std::vector<endpoints::APIResource>> resources_;
  std::map<std::string, std::shared_ptr<const OpenAPIDocument>> openapi_;
  std::map<std::string, std::shared_ptr<const OpenAPIV2Document>> openapi_v2_;
};

// An APIResourceList (JSON text) as discovery resources; std::nullopt when unreadable.
std::optional<std::vector<endpoints::APIResource>> ParseAPIResourceList(const std::string& body);

}  // namespace aggregator
