#include "pkg/genericserver/storage/value/encryption_config.h"

#include <algorithm>
#include <array>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/yaml/yaml_json.h"
#include "pkg/util/base64.h"
#include "pkg/util/file.h"
#include "pkg/util/strings.h"

namespace storage::value {
namespace {

using nlohmann::json;
using GroupResource = std::pair<std::string, std::string>;  // group, resource

// "secrets" -> ("", "secrets"); "deployments.apps" -> ("apps", "deployments"); "*." ->
// ("", "*"): the text after the first dot is the group.
GroupResource ParseGroupResource(std::string_view s) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos) return {"", std::string(s)};
  return {std::string(s.substr(dot + 1)), std::string(s.substr(0, dot))};
}

const GroupResource kAnyGroupAnyResource{"*", "*"};

// The providers a ProviderConfiguration may name, in upstream's order for messages.
constexpr std::array<std::string_view, 5> kProviders = {"kms", "aesgcm", "aescbc", "secretbox",
                                                        "identity"};

std::string StringList(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const std::string& s : items) quoted.push_back(util::Quote(s));
  return "[]string{" + util::Join(quoted, ", ") + "}";
}

// Go's base64.StdEncoding: the standard alphabet, padded.
std::optional<std::string> DecodeStdBase64(std::string_view s) {
  if (s.size() % 4 != 0 || s.find_first_of("-_") != std::string_view::npos) return std::nullopt;
  return util::Base64Decode(s);
}

std::vector<std::string> Strings(const json& doc, const char* field) {
  std::vector<std::string> out;
  auto it = doc.find(field);
  if (it == doc.end() || !it->is_array()) return out;
  for (const json& item : *it) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

const json& Array(const json& doc, const char* field) {
  static const json kEmpty = json::array();
  auto it = doc.find(field);
  return it != doc.end() && it->is_array() ? *it : kEmpty;
}

struct Validator {
  std::vector<std::string> errors;

  void Required(const std::string& path, const std::string& detail) {
    errors.push_back(path + ": Required value: " + detail);
  }
  void Invalid(const std::string& path, const std::string& value, const std::string& detail) {
    errors.push_back(path + ": Invalid value: " + value + ": " + detail);
  }

  void ResourceOverlap(const std::vector<std::string>& resources, const std::string& path) {
    if (resources.size() < 2) return;
    std::vector<GroupResource> parsed;
    for (const std::string& r : resources) parsed.push_back(ParseGroupResource(r));
    bool overlap = false, duplicate = false;
    for (size_t i = 0; i < parsed.size(); ++i) {
      for (size_t j = 0; j < parsed.size(); ++j) {
        if (i == j) continue;
        const GroupResource& a = parsed[i];
        const GroupResource& b = parsed[j];
        if (a == b && !duplicate) {
          duplicate = true;
          continue;
        }
        if (overlap) continue;
        if (a == kAnyGroupAnyResource) {
          overlap = true;
          continue;
        }
        if (a.first != b.first) continue;
        if (a.second == "*" || b.second == "*") overlap = true;
      }
    }
    if (duplicate) {
      Invalid(path, StringList(resources), "the same resource cannot be specified multiple times");
    }
    if (overlap) {
      Invalid(path, StringList(resources),
              "using overlapping resources such as 'secrets' and '*.' in the same resource list "
              "is not allowed as they will be masked");
    }
  }

  void ResourceNames(const std::vector<std::string>& resources, const std::string& path) {
    for (size_t j = 0; j < resources.size(); ++j) {
      const std::string& res = resources[j];
      const std::string at = path + "[" + std::to_string(j) + "]";
      const std::string value = util::Quote(res);
      auto [group, resource] = ParseGroupResource(res);
      if (std::ranges::any_of(res, [](char c) { return c >= 'A' && c <= 'Z'; })) {
        Invalid(at, value, "resource name should not contain capital letters");
      } else if (res == "*") {
        Invalid(at, value,
                "use '*.' to encrypt all the resources from core API group or *.* to encrypt "
                "all resources");
      } else if (res == "apiserveripinfo" || res == "serviceipallocations" ||
                 res == "servicenodeportallocations") {
        Invalid(at, value, "resources which do not have REST API/s cannot be encrypted");
      } else if (group == "events.k8s.io") {
        Invalid(at, value,
                "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use "
                "'events' instead in the config file");
      } else if (group == "extensions") {
        Invalid(at, value, "'extensions' group has been removed and cannot be used for encryption");
      } else if (group == "*" && resource != "*") {
        Invalid(at, value, "encrypting the same resource across groups is not supported");
      }
    }
  }

  void Keys(const json& provider, const std::string& path, std::vector<size_t> sizes) {
    const json& keys = Array(provider, "keys");
    if (keys.empty()) {
      Required(path, "at least one keys is required");
      return;
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      const std::string at = path + "[" + std::to_string(i) + "]";
      const json& key = keys[i];
      std::string name = key.is_object() ? key.value("name", "") : "";
      std::string secret = key.is_object() ? key.value("secret", "") : "";
      if (name.empty()) Required(at + ".name", "name is a mandatory field for a key");
      if (secret.empty()) {
        Required(at + ".secret", "secret is a mandatory field for a key");
        continue;
      }
      auto decoded = DecodeStdBase64(secret);
      if (!decoded) {
        Invalid(at + ".secret", "\"REDACTED\"", "secrets must be base64 encoded");
        continue;
      }
      if (std::ranges::find(sizes, decoded->size()) == sizes.end()) {
        std::vector<std::string> want;
        for (size_t s : sizes) want.push_back(std::to_string(s));
        Invalid(at + ".secret", "\"REDACTED\"",
                "secret is not of the expected length, got " + std::to_string(decoded->size()) +
                    ", expected one of [" + util::Join(want, " ") + "]");
      }
    }
  }

  void Provider(const json& provider, const std::string& path) {
    std::vector<std::string> named;
    for (std::string_view p : kProviders) {
      if (provider.is_object() && provider.contains(p) && !provider[p].is_null()) {
        named.emplace_back(p);
      }
    }
    if (named.empty()) {
      Invalid(path, "{}",
              "provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, "
              "Secretbox, Identity");
      return;
    }
    if (named.size() > 1) {
      Invalid(path, StringList(named),
              "more than one provider specified in a single element, should split into different "
              "list elements");
      return;
    }
    const std::string& type = named.front();
    if (type == "aesgcm" || type == "aescbc") {
      Keys(provider[type], path + "." + type + ".keys", {16, 24, 32});
    } else if (type == "secretbox") {
      Keys(provider[type], path + ".secretbox.keys", {32});
    } else if (type == "kms") {
      Invalid(path + ".kms", "{}",
              "KMS providers are not supported by this server: use aescbc, aesgcm or secretbox");
    }
  }
};

// One provider's transformer, keys tried in order: "<key name>:" in front of the data.
PrefixTransformer KeyedProvider(const json& config, std::string_view type) {
  std::vector<PrefixTransformer> keys;
  for (const json& key : Array(config, "keys")) {
    std::string secret = *DecodeStdBase64(key.value("secret", ""));
    TransformerPtr t = type == "aescbc"   ? NewAESCBCTransformer(std::move(secret))
                       : type == "aesgcm" ? NewAESGCMTransformer(std::move(secret))
                                          : NewSecretboxTransformer(std::move(secret));
    keys.push_back({key.value("name", "") + ":", std::move(t), ""});
  }
  std::string kind = type == "secretbox" ? "Secretbox" : "AES";
  std::string prefix = std::string(kEncryptedPrefix) + std::string(type) + ":v1:";
  return {prefix,
          NewPrefixTransformers(std::move(keys), "no matching key was found for the provided " +
                                                     kind + " transformer"),
          prefix};
}

}  // namespace

TransformerPtr EncryptionConfig::ForResource(std::string_view group,
                                             std::string_view resource) const {
  for (const GroupResource& gr : {GroupResource{std::string(group), std::string(resource)},
                                  GroupResource{std::string(group), "*"}, kAnyGroupAnyResource}) {
    if (auto it = overrides.find(gr); it != overrides.end()) return it->second;
  }
  return nullptr;
}

std::expected<EncryptionConfig, std::string> ParseEncryptionConfig(std::string_view text) {
  auto parsed = apimachinery::yaml::YAMLToJSON(text);
  if (!parsed) return std::unexpected(parsed.error());
  const json& doc = *parsed;
  if (!doc.is_object()) return std::unexpected("the configuration is not an object");
  const std::string api_version = doc.value("apiVersion", "");
  const std::string kind = doc.value("kind", "");
  if (kind != "EncryptionConfiguration" || api_version != "apiserver.config.k8s.io/v1") {
    return std::unexpected("no kind " + util::Quote(kind) + " is registered for version " +
                           util::Quote(api_version) +
                           " (want kind \"EncryptionConfiguration\" of "
                           "\"apiserver.config.k8s.io/v1\")");
  }
  const json& entries = Array(doc, "resources");
  Validator v;
  if (entries.empty()) v.Required("resources", "at least one resources is required");
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string at = "resources[" + std::to_string(i) + "]";
    const json& entry = entries[i].is_object() ? entries[i] : json::object();
    std::vector<std::string> resources = Strings(entry, "resources");
    if (resources.empty()) {
      v.Required(at + ".resources", "at least one " + at + ".resources is required");
    }
    v.ResourceOverlap(resources, at + ".resources");
    v.ResourceNames(resources, at + ".resources");
    const json& providers = Array(entry, "providers");
    if (providers.empty()) {
      v.Required(at + ".providers", "at least one " + at + ".providers is required");
    }
    for (size_t j = 0; j < providers.size(); ++j) {
      v.Provider(providers[j], at + ".providers[" + std::to_string(j) + "]");
    }
  }
  if (v.errors.size() == 1) return std::unexpected(v.errors.front());
  if (!v.errors.empty()) return std::unexpected("[" + util::Join(v.errors, ", ") + "]");

  std::map<GroupResource, std::vector<PrefixTransformer>> lists;
  for (const json& entry : entries) {
    std::vector<PrefixTransformer> providers;
    for (const json& provider : Array(entry, "providers")) {
      if (provider.contains("identity")) {
        providers.push_back({"", NewIdentityTransformer(), "identity"});
      } else {
        for (std::string_view type : {"aesgcm", "aescbc", "secretbox"}) {
          if (provider.contains(type)) providers.push_back(KeyedProvider(provider[type], type));
        }
      }
    }
    for (const std::string& resource : Strings(entry, "resources")) {
      auto& list = lists[ParseGroupResource(resource)];
      list.insert(list.end(), providers.begin(), providers.end());
    }
  }
  EncryptionConfig config;
  for (auto& [gr, list] : lists) {
    config.overrides[gr] = NewPrefixTransformers(std::move(list), "no matching prefix found");
  }
  return config;
}

std::expected<EncryptionConfig, std::string> LoadEncryptionConfig(const std::string& path) {
  auto text = util::ReadFile(path);
  if (!text) {
    return std::unexpected("error opening encryption provider configuration file " +
                           util::Quote(path) + ": " + text.error());
  }
  if (text->empty()) {
    return std::unexpected("encryption provider configuration file " + util::Quote(path) +
                           " is empty");
  }
  auto config = ParseEncryptionConfig(*text);
  if (!config) return std::unexpected("error while parsing file: " + config.error());
  return config;
}

}  // namespace storage::value
