#pragma once
// kube-system/extension-apiserver-authentication: how extension API servers (and webhooks)
// are told to authenticate the clients of this server and its front proxy, written once
// after start-up as upstream's cluster-authentication-trust controller writes it. What other
// servers sharing the storage published is kept: lists are merged, CA bundles joined (expired
// certificates and duplicates dropped). Keys of upstream 1.32 with its default feature gates:
//   client-ca-file                       PEM bundle of the client CAs
//   requestheader-client-ca-file         PEM bundle of the front-proxy CAs
//   requestheader-allowed-names          JSON list of the front proxy's allowed CNs
//   requestheader-username-headers       JSON list
//   requestheader-group-headers          JSON list
//   requestheader-extra-headers-prefix   JSON list
// The requestheader-* keys only when there is a front-proxy CA.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pkg/genericserver/server/hooks.h"

namespace registry {
class Store;
}

namespace master::bootstrap {

inline constexpr char kAuthenticationConfigMapNamespace[] = "kube-system";
inline constexpr char kAuthenticationConfigMapName[] = "extension-apiserver-authentication";

// What this server requires the ConfigMap to say (upstream's ClusterAuthenticationInfo).
// PEM bundles; an empty request_header_ca means no request-header authentication.
struct ClusterAuthenticationInfo {
  std::string client_ca;
  std::string request_header_ca;
  std::vector<std::string> request_header_username_headers;
  std::vector<std::string> request_header_group_headers;
  std::vector<std::string> request_header_extra_header_prefixes;
  std::vector<std::string> request_header_allowed_names;
};

// The data the ConfigMap should hold, given the data it holds now (empty when there is none).
// A value of `existing` that does not parse counts as absent.
std::map<std::string, std::string> AuthenticationConfigMapData(
    const std::map<std::string, std::string>& existing, const ClusterAuthenticationInfo& required);

// A string list as Go's encoding/json writes it: `["a","b"]`, `<`, `>` and `&` escaped.
std::string GoJSONStringList(const std::vector<std::string>& values);

// The post-start hook: creates kube-system if it is missing, then creates or updates the
// ConfigMap (no write when it already says the right thing).
genericserver::PostStartHookFunc AuthenticationConfigMap(
    std::shared_ptr<registry::Store> namespaces, std::shared_ptr<registry::Store> config_maps,
    ClusterAuthenticationInfo required);

}  // namespace master::bootstrap
