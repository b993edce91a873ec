#include "pkg/genericserver/apimachinery/yaml/yaml_json.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/yaml/decode.h"
#include "pkg/genericserver/apimachinery/yaml/emitter.h"
#include "pkg/genericserver/apimachinery/yaml/node_tree.h"
#include "pkg/genericserver/apimachinery/yaml/utf8.h"

namespace apimachinery::yaml {

namespace {

std::expected<nlohmann::json, std::string> Convert(std::string_view yaml, bool strict) {
  if (auto bad = internal::CheckYAMLInput(yaml)) return std::unexpected("yaml: " + *bad);
  auto tree = internal::ParseSingleDocument(yaml);
  if (!tree) return std::unexpected("yaml: " + tree.error());
  return internal::DecodeTree(*tree, strict);
}

}  // namespace

std::expected<nlohmann::json, std::string> YAMLToJSON(std::string_view yaml) {
  return Convert(yaml, false);
}

std::expected<nlohmann::json, std::string> YAMLToJSONStrict(std::string_view yaml) {
  return Convert(yaml, true);
}

std::string JSONToYAML(const nlohmann::json& json) {
  internal::Emitter emitter;
  emitter.Document(json);
  return std::move(emitter).Output();
}

std::string JSONToYAMLNodeV3(const nlohmann::json& json) {
  internal::Emitter emitter(internal::Dialect::kV3Node);
  emitter.Document(json);
  return std::move(emitter).Output();
}

}  // namespace apimachinery::yaml
