#include "pkg/genericserver/storage/etcd3/gateway_json.h"

#include <charconv>

#include <nlohmann/json.hpp>

#include "pkg/util/base64.h"

namespace storage::etcd3 {

using json = nlohmann::json;

std::string B64(std::string_view bytes) { return util::Base64Encode(bytes); }

const json* Field(const json& j, const char* name) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(name);
  return it == j.end() ? nullptr : &*it;
}

bool Bool(const json& j, const char* name) {
  const json* f = Field(j, name);
  return f && f->is_boolean() && f->get<bool>();
}

std::string Str(const json& j, const char* name) {
  const json* f = Field(j, name);
  return f && f->is_string() ? f->get<std::string>() : std::string();
}

const json& Array(const json& j, const char* name) {
  static const json empty = json::array();
  const json* f = Field(j, name);
  return f && f->is_array() ? *f : empty;
}

const json& Object(const json& j, const char* name) {
  static const json empty = json::object();
  const json* f = Field(j, name);
  return f && f->is_object() ? *f : empty;
}

int64_t Int(const json& j, const char* name) {
  const json* f = Field(j, name);
  if (!f) return 0;
  if (f->is_number_integer()) return f->get<int64_t>();
  if (!f->is_string()) return 0;
  const std::string& s = f->get_ref<const std::string&>();
  int64_t value = 0;
  std::from_chars(s.data(), s.data() + s.size(), value);
  return value;
}

int64_t HeaderRevision(const json& j) { return Int(Object(j, "header"), "revision"); }

std::optional<std::string> Bytes(const json& j, const char* name) {
  const json* f = Field(j, name);
  if (!f || !f->is_string()) return std::string();
  return util::Base64Decode(f->get_ref<const std::string&>());
}

Result<KeyValue> ParseKV(const json& j) {
  auto key = Bytes(j, "key");
  auto value = Bytes(j, "value");
  if (!key || !value) return std::unexpected(InternalError("etcd sent a kv that is not base64"));
  return KeyValue{std::move(*key), std::make_shared<const std::string>(std::move(*value)),
                  Int(j, "create_revision"), Int(j, "mod_revision")};
}

Result<json> ParseBody(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return std::unexpected(
        InternalError("etcd answered with something not JSON: " + body.substr(0, 200)));
  }
  return j;
}

json Compare(const std::string& key, const char* target, const char* result, const char* field,
             int64_t value) {
  return json{{"key", B64(key)}, {"target", target}, {"result", result}, {field, value}};
}

std::string TxnBody(const std::string& key, json compares, json success) {
  json failure = json::array({json{{"request_range", json{{"key", B64(key)}}}}});
  return json{{"compare", std::move(compares)},
              {"success", json::array({std::move(success)})},
              {"failure", std::move(failure)}}
      .dump();
}

}  // namespace storage::etcd3
