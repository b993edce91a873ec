#include "pkg/client/kubeconfig.h"

#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/yaml/yaml_json.h"
#include "pkg/util/base64.h"
#include "pkg/util/file.h"
#include "pkg/util/strings.h"

namespace client {

namespace {

using nlohmann::json;

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// The entry `name` of a named list ("clusters", "users", "contexts") and its body.
const json* Named(const json& config, const char* list, const char* body, const std::string& name) {
  auto it = config.find(list);
  if (it == config.end() || !it->is_array()) return nullptr;
  for (const json& entry : *it) {
    if (entry.is_object() && Str(entry, "name") == name) {
      auto b = entry.find(body);
      static const json kEmpty = json::object();
      return b != entry.end() && b->is_object() ? &*b : &kEmpty;
    }
  }
  return nullptr;
}

std::string Resolve(const std::string& path, const std::string& directory) {
  if (path.empty() || std::filesystem::path(path).is_absolute() || directory.empty()) {
    return path;
  }
  return (std::filesystem::path(directory) / path).string();
}

// A PEM from "<field>-data" (base64) or the file "<field>"; a failure (both given, bad
// base64, an unreadable file) is added to errors and gives "".
std::string DataOrFile(const json& body, const std::string& field, const std::string& directory,
                       const std::string& what, std::vector<std::string>& errors) {
  const std::string data = Str(body, (field + "-data").c_str());
  const std::string file = Str(body, field.c_str());
  if (!data.empty() && !file.empty()) {
    errors.push_back(field + "-data and " + field + " are both specified for " + what +
                     "; please use only one");
    return "";
  }
  if (!data.empty()) {
    auto decoded = util::Base64Decode(data);
    if (!decoded) {
      errors.push_back("illegal base64 data in " + field + "-data for " + what);
      return "";
    }
    return *decoded;
  }
  if (file.empty()) return "";
  auto read = util::ReadFile(Resolve(file, directory));
  if (!read) {
    errors.push_back("unable to read " + field + " " + Resolve(file, directory) + " for " + what +
                     " due to " + read.error());
    return "";
  }
  return *read;
}

}  // namespace

std::expected<RestConfig, std::string> ParseKubeconfig(std::string_view text,
                                                       const std::string& directory,
                                                       const KubeconfigOverrides& overrides) {
  auto parsed = apimachinery::yaml::YAMLToJSON(text);
  if (!parsed) return std::unexpected("error loading config: " + parsed.error());
  const json config = parsed->is_object() ? *parsed : json::object();

  const std::string context_name =
      overrides.context.empty() ? Str(config, "current-context") : overrides.context;
  std::vector<std::string> errors;
  static const json kNone = json::object();
  const json* context = &kNone;
  if (!context_name.empty()) {
    context = Named(config, "contexts", "context", context_name);
    if (context == nullptr) {
      errors.push_back("context was not found for specified context: " + context_name);
      context = &kNone;
    }
  }
  const std::string cluster_name = Str(*context, "cluster");
  const std::string user_name = Str(*context, "user");
  const json* cluster =
      cluster_name.empty() ? &kNone : Named(config, "clusters", "cluster", cluster_name);
  if (cluster == nullptr) {
    errors.push_back("cluster \"" + cluster_name + "\" not found");
    cluster = &kNone;
  }
  const json* user = user_name.empty() ? &kNone : Named(config, "users", "user", user_name);
  if (user == nullptr) {
    errors.push_back("user \"" + user_name + "\" not found");
    user = &kNone;
  }

  RestConfig out;
  out.host = overrides.master.empty() ? Str(*cluster, "server") : overrides.master;
  if (context_name.empty() && out.host.empty() && errors.empty()) {
    return std::unexpected(
        "invalid configuration: no configuration has been provided, try setting "
        "KUBERNETES_MASTER environment variable");
  }
  if (out.host.empty()) errors.push_back("cluster has no server defined");
  out.tls_server_name = Str(*cluster, "tls-server-name");
  auto skip = cluster->find("insecure-skip-tls-verify");
  out.insecure_skip_tls_verify = skip != cluster->end() && skip->is_boolean() && skip->get<bool>();
  const std::string cluster_what = "\"" + cluster_name + "\"";
  out.ca_pem = DataOrFile(*cluster, "certificate-authority", directory, cluster_what, errors);
  if (out.insecure_skip_tls_verify && !out.ca_pem.empty()) {
    errors.push_back("specifying a root certificates file with the insecure flag is not allowed");
  }
  const std::string user_what = "\"" + user_name + "\"";
  out.cert_pem = DataOrFile(*user, "client-certificate", directory, user_what, errors);
  out.key_pem = DataOrFile(*user, "client-key", directory, user_what, errors);
  if (out.cert_pem.empty() != out.key_pem.empty()) {
    errors.push_back(out.cert_pem.empty()
                         ? "client-key-data or client-key is specified for " + user_what +
                               " but client-certificate-data or client-certificate is not"
                         : "client-certificate-data or client-certificate is specified for " +
                               user_what + " but client-key-data or client-key is not");
  }
  out.bearer_token = Str(*user, "token");
  const std::string token_file = Str(*user, "tokenFile");
  if (out.bearer_token.empty() && !token_file.empty()) {
    auto token = util::ReadFile(Resolve(token_file, directory));
    if (!token) {
      errors.push_back("unable to read tokenFile " + Resolve(token_file, directory) + " for " +
                       user_what + " due to " + token.error());
    } else {
      out.bearer_token = std::string(util::TrimSpace(*token));
    }
  }
  out.namespace_name = Str(*context, "namespace");
  if (out.namespace_name.empty()) out.namespace_name = "default";

  if (!errors.empty()) {
    std::string message = "invalid configuration: ";
    if (errors.size() == 1) return std::unexpected(message + errors[0]);
    message += "[";
    for (size_t i = 0; i < errors.size(); ++i) message += (i ? ", " : "") + errors[i];
    return std::unexpected(message + "]");
  }
  return out;
}

std::expected<RestConfig, std::string> LoadKubeconfig(const std::string& path,
                                                      const KubeconfigOverrides& overrides) {
  auto text = util::ReadFile(path);
  if (!text) return std::unexpected(text.error());
  return ParseKubeconfig(*text, std::filesystem::path(path).parent_path().string(), overrides);
}

}  // namespace client
