#pragma once
// The messages of etcd's v3 JSON gateway: keys and values travel base64-encoded, int64s
// as strings, and fields that are zero, false or empty are left out. nlohmann/json is
// only declared here; include <nlohmann/json.hpp> in the .cc files that build messages.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/storage/kv.h"

namespace storage::etcd3 {

std::string B64(std::string_view bytes);

// Readers of the gateway's answers that never throw: a field of the wrong type reads as
// absent.
const nlohmann::json* Field(const nlohmann::json& j, const char* name);
bool Bool(const nlohmann::json& j, const char* name);
std::string Str(const nlohmann::json& j, const char* name);
const nlohmann::json& Array(const nlohmann::json& j, const char* name);
const nlohmann::json& Object(const nlohmann::json& j, const char* name);
// An int64, which the gateway writes as a string.
int64_t Int(const nlohmann::json& j, const char* name);
int64_t HeaderRevision(const nlohmann::json& j);
// A base64 field; std::nullopt when it does not decode.
std::optional<std::string> Bytes(const nlohmann::json& j, const char* name);

Result<KeyValue> ParseKV(const nlohmann::json& j);
// An answer's body, which must be a JSON object.
Result<nlohmann::json> ParseBody(const std::string& body);

// One comparison of a transaction: the key's target ("CREATE", "MOD") compared by result
// ("EQUAL", "GREATER") with value, held in field ("create_revision", "mod_revision").
nlohmann::json Compare(const std::string& key, const char* target, const char* result,
                       const char* field, int64_t value);
// A compare-and-swap: success when every compare holds, else the key's current kv.
std::string TxnBody(const std::string& key, nlohmann::json compares, nlohmann::json success);

}  // namespace storage::etcd3
