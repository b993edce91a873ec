#include "pkg/genericserver/admission/webhook/credentials.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/yaml/yaml_json.h"
#include "pkg/util/base64.h"
#include "pkg/util/file.h"
#include "pkg/util/strings.h"

namespace admission::webhook {

namespace {

using nlohmann::json;

std::string Str(const json& object, const char* key) {
  auto it = object.is_object() ? object.find(key) : object.end();
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// A `<field>-data` (base64) or a `<field>` path relative to the kubeconfig's directory.
std::expected<std::string, std::string> Material(const json& user, const std::string& field,
                                                 const std::string& directory) {
  if (const std::string data = Str(user, (field + "-data").c_str()); !data.empty()) {
    auto decoded = util::Base64Decode(data);
    if (!decoded) return std::unexpected(field + "-data is not valid base64");
    return *decoded;
  }
  std::string path = Str(user, field.c_str());
  if (path.empty()) return std::string();
  if (path[0] != '/') path = directory + "/" + path;
  return util::ReadFile(path);
}

}  // namespace

std::expected<std::shared_ptr<const CredentialsResolver>, std::string>
CredentialsResolver::FromConfiguration(const std::string& configuration) {
  auto resolver = std::make_shared<CredentialsResolver>();
  if (configuration.empty()) return resolver;
  const json doc = json::parse(configuration, nullptr, false);
  if (!doc.is_object())
    return std::unexpected("the webhook admission configuration is not an object");
  const std::string path = Str(doc, "kubeConfigFile");
  if (path.empty()) return resolver;
  if (path[0] != '/')
    return std::unexpected("kubeConfigFile " + util::Quote(path) +
                           " must be an absolute file path");
  auto text = util::ReadFile(path);
  if (!text)
    return std::unexpected("couldn't read kubeConfigFile " + util::Quote(path) + ": " +
                           text.error());
  auto kubeconfig = apimachinery::yaml::YAMLToJSON(*text);
  if (!kubeconfig || !kubeconfig->is_object()) {
    return std::unexpected("couldn't parse kubeConfigFile " + util::Quote(path));
  }
  const std::string directory = path.substr(0, path.rfind('/'));
  const json users = kubeconfig->value("users", json::array());
  for (const json& entry : users) {
    const std::string name = Str(entry, "name");
    const json user = entry.value("user", json::object());
    Credentials c;
    auto cert = Material(user, "client-certificate", directory);
    auto key = Material(user, "client-key", directory);
    if (!cert) return std::unexpected("user " + util::Quote(name) + ": " + cert.error());
    if (!key) return std::unexpected("user " + util::Quote(name) + ": " + key.error());
    c.cert_pem = std::move(*cert);
    c.key_pem = std::move(*key);
    c.bearer_token = Str(user, "token");
    if (const std::string file = Str(user, "tokenFile"); !file.empty() && c.bearer_token.empty()) {
      auto token = util::ReadFile(file[0] == '/' ? file : directory + "/" + file);
      if (!token) return std::unexpected("user " + util::Quote(name) + ": " + token.error());
      c.bearer_token = std::string(util::TrimSpace(*token));
    }
    resolver->users_[name] = std::move(c);
  }
  return resolver;
}

std::optional<Credentials> CredentialsResolver::For(std::string_view target) const {
  const auto find = [this](std::string_view name) -> std::optional<Credentials> {
    auto it = users_.find(name);
    if (it == users_.end()) return std::nullopt;
    return it->second;
  };
  // The name itself, then "*.<the rest>" from the most specific.
  const auto by_name = [&](std::string_view name) -> std::optional<Credentials> {
    if (auto c = find(name)) return c;
    for (size_t dot = name.find('.'); dot != std::string_view::npos;
         dot = name.find('.', dot + 1)) {
      if (auto c = find("*." + std::string(name.substr(dot + 1)))) return c;
    }
    return std::nullopt;
  };
  if (auto c = by_name(target)) return c;
  if (target.ends_with(":443")) {
    if (auto c = by_name(target.substr(0, target.size() - 4))) return c;
  }
  return find("*");
}

}  // namespace admission::webhook
