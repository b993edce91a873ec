// core/v1 secrets: data values are base64 (checked as Go decodes []byte), stringData is
// write-only and merged into data, type defaults to Opaque and never changes, the
// well-known types require their keys, and `immutable: true` freezes the data.
#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/core/config_data.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"
#include "pkg/util/base64.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

std::string Type(const json& secret) {
  auto it = secret.find("type");
  return it != secret.end() && it->is_string() ? it->get<std::string>() : "";
}

bool HasKey(const json& secret, const char* key) {
  auto data = secret.find("data");
  return data != secret.end() && data->is_object() && data->contains(key);
}

std::string Value(const json& secret, const char* key) {
  if (!HasKey(secret, key) || !secret["data"][key].is_string()) return "";
  return util::Base64Decode(secret["data"][key].get<std::string>()).value_or("");
}

// A docker config secret: the key present and its content a JSON object.
void ValidateDockerConfig(const json& secret, const char* key, registry::FieldErrors& errors) {
  const std::string path = std::string("data[") + key + "]";
  if (!HasKey(secret, key)) {
    errors.push_back(v::FieldRequired(path, ""));
    return;
  }
  const json parsed = json::parse(Value(secret, key), nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    errors.push_back(v::FieldInvalid(path, "<secret contents redacted>",
                                     "invalid character looking for beginning of value"));
  }
}

void ValidateType(const json& secret, registry::FieldErrors& errors) {
  const std::string type = Type(secret);
  if (type == "kubernetes.io/service-account-token") {
    const json& meta = secret["metadata"];
    const bool named = meta.contains("annotations") && meta["annotations"].is_object() &&
                       meta["annotations"].value("kubernetes.io/service-account.name", "") != "";
    if (!named) {
      errors.push_back(
          v::FieldRequired("metadata.annotations[kubernetes.io/service-account.name]", ""));
    }
  } else if (type == "kubernetes.io/dockercfg") {
    ValidateDockerConfig(secret, ".dockercfg", errors);
  } else if (type == "kubernetes.io/dockerconfigjson") {
    ValidateDockerConfig(secret, ".dockerconfigjson", errors);
  } else if (type == "kubernetes.io/basic-auth") {
    if (!HasKey(secret, "username") && !HasKey(secret, "password")) {
      errors.push_back(v::FieldRequired("data[username]", ""));
      errors.push_back(v::FieldRequired("data[password]", ""));
    }
  } else if (type == "kubernetes.io/ssh-auth") {
    if (Value(secret, "ssh-privatekey").empty()) {
      errors.push_back(v::FieldRequired("data[ssh-privatekey]", ""));
    }
  } else if (type == "kubernetes.io/tls") {
    if (!HasKey(secret, "tls.crt")) errors.push_back(v::FieldRequired("data[tls.crt]", ""));
    if (!HasKey(secret, "tls.key")) errors.push_back(v::FieldRequired("data[tls.key]", ""));
  }
}

class SecretStrategy final : public registry::Strategy {
 public:
  std::optional<std::string> Decode(json& secret) const override {
    std::string bad = CheckBase64Map(secret, "data");
    if (!bad.empty()) return bad;
    // stringData wins over data for the same key, and is never stored.
    auto string_data = secret.find("stringData");
    if (string_data != secret.end()) {
      if (string_data->is_object()) {
        for (auto it = string_data->begin(); it != string_data->end(); ++it) {
          if (it->is_string()) {
            secret["data"][it.key()] = util::Base64Encode(it->get<std::string>());
          }
        }
      }
      secret.erase("stringData");
    }
    if (Type(secret).empty()) secret["type"] = "Opaque";
    return std::nullopt;
  }

  registry::FieldErrors Validate(const json& secret) const override {
    registry::FieldErrors errors;
    ValidateDataKeys(secret, "data", errors);
    if (DataSize(secret, "data", true) > kMaxDataSize) {
      errors.push_back(v::FieldTooLong("data", kMaxDataSize));
    }
    ValidateType(secret, errors);
    return errors;
  }

  registry::FieldErrors ValidateUpdate(const json& secret, const json& old) const override {
    registry::FieldErrors errors;
    if (Type(secret) != Type(old))
      errors.push_back(v::FieldInvalid("type", Type(secret), "field is immutable"));
    ValidateImmutable(secret, old, {"data"}, errors);
    for (auto& e : Validate(secret)) errors.push_back(std::move(e));
    return errors;
  }

  void Canonicalize(json& secret) const override { DropEmpty(secret, "data"); }
};

}  // namespace

registry::ResourceSpecPtr Secrets() {
  auto spec = std::make_shared<registry::ResourceSpec>();
  spec->version = "v1";
  spec->kind = "Secret";
  spec->plural = "secrets";
  spec->strategy = std::make_shared<SecretStrategy>();
  spec->columns = {
      registry::NameColumn(),
      {"Type", "string", "", "What kind of secret this is.", 0},
      {"Data", "string", "", "How many keys the secret has.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& secret, std::chrono::system_clock::time_point now) {
    return std::vector<json>{registry::MetaString(secret, "name"), Type(secret),
                             Count(secret, "data"), registry::Age(secret, now)};
  };
  spec->fields["type"] = [](const json& secret) { return Type(secret); };
  return Finish(std::move(spec));
}

}  // namespace master::resources
