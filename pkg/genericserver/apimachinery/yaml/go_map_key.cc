#include "pkg/genericserver/apimachinery/yaml/go_map_key.h"

#include <cmath>
#include <cstdio>

#include "pkg/genericserver/apimachinery/yaml/go_format.h"
#include "pkg/util/strings.h"

namespace apimachinery::yaml::internal {

namespace {

std::string Hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::string GoKeySyntax(const GoMapKey& key) {
  switch (key.type) {
    case GoMapKey::Type::kNil:
      return "<nil>";
    case GoMapKey::Type::kBool:
      return key.boolean ? "true" : "false";
    case GoMapKey::Type::kInt:
      return std::to_string(key.integer);
    case GoMapKey::Type::kUint:
      return Hex(key.unsigned_integer);
    case GoMapKey::Type::kFloat:
      return FormatFloatG(key.floating, false);
    case GoMapKey::Type::kString:
      break;
  }
  return util::Quote(key.text);
}

std::expected<std::string, std::string> JSONMemberName(const GoMapKey& key) {
  switch (key.type) {
    case GoMapKey::Type::kString:
      return key.text;
    case GoMapKey::Type::kInt:
      return std::to_string(key.integer);
    case GoMapKey::Type::kFloat:
      return FormatYAMLFloat(key.floating, true);
    case GoMapKey::Type::kBool:
      return key.boolean ? "true" : "false";
    case GoMapKey::Type::kUint:
      return std::unexpected("Unsupported map key of type: uint64, key: " +
                             Hex(key.unsigned_integer));
    case GoMapKey::Type::kNil:
      break;
  }
  return std::unexpected(std::string("Unsupported map key of type: %!s(<nil>), key: <nil>"));
}

std::pair<std::size_t, bool> GoKeyIndex::Insert(const GoMapKey& key) {
  std::pair<int, std::string> id{static_cast<int>(key.type), std::string()};
  switch (key.type) {
    case GoMapKey::Type::kBool:
      id.second = key.boolean ? "1" : "0";
      break;
    case GoMapKey::Type::kInt:
      id.second = std::to_string(key.integer);
      break;
    case GoMapKey::Type::kUint:
      id.second = std::to_string(key.unsigned_integer);
      break;
    case GoMapKey::Type::kFloat:
      id.second = std::isnan(key.floating)
                      ? "nan" + std::to_string(nan_keys_++)
                      : FormatFloatG(key.floating == 0 ? 0 : key.floating, false);
      break;
    case GoMapKey::Type::kString:
      id.second = key.text;
      break;
    case GoMapKey::Type::kNil:
      break;
  }
  const auto [it, inserted] = positions_.try_emplace(std::move(id), positions_.size());
  return {it->second, inserted};
}

}  // namespace apimachinery::yaml::internal
