#include "pkg/genericserver/apimachinery/protobuf/messages.h"

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/protobuf/decoder.h"
#include "pkg/genericserver/apimachinery/protobuf/encoder.h"
#include "pkg/genericserver/apimachinery/protobuf/generated/messages.h"
#include "pkg/genericserver/apimachinery/protobuf/wire.h"

namespace apimachinery::protobuf {
namespace {

const std::string& StringAt(const nlohmann::json& object, const char* key) {
  static const std::string kEmpty;
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get_ref<const std::string&>() : kEmpty;
}

}  // namespace

const MessageSpec* FindKind(std::string_view api_version, std::string_view kind) {
  const auto& kinds = generated::kKinds;
  auto it = std::lower_bound(
      kinds.begin(), kinds.end(), std::pair(api_version, kind),
      [](const KindMessage& e, const auto& key) { return std::pair(e.api_version, e.kind) < key; });
  if (it == kinds.end() || it->api_version != api_version || it->kind != kind) return nullptr;
  return it->message;
}

std::expected<nlohmann::json, std::string> ToJSON(const Envelope& envelope) {
  const MessageSpec* spec = FindKind(envelope.type.api_version, envelope.type.kind);
  if (spec == nullptr) {
    return std::unexpected("no protobuf decoding for kind \"" + envelope.type.kind +
                           "\" in version \"" + envelope.type.api_version + "\"");
  }
  auto object = DecodeMessage(*spec, envelope.raw);
  if (!object) return std::unexpected(object.error());
  // TypeMeta is inline with omitempty; both are non-empty for a known kind.
  (*object)["apiVersion"] = envelope.type.api_version;
  (*object)["kind"] = envelope.type.kind;
  return object;
}

std::optional<std::string> EncodeObject(const nlohmann::json& object) {
  if (!object.is_object()) return std::nullopt;
  TypeMeta type{StringAt(object, "apiVersion"), StringAt(object, "kind")};
  const MessageSpec* spec = FindKind(type.api_version, type.kind);
  if (spec == nullptr) return std::nullopt;
  return EncodeEnvelope(type, EncodeMessage(*spec, object));
}

std::optional<std::string> EncodeMessageOf(const nlohmann::json& object) {
  if (!object.is_object()) return std::nullopt;
  const MessageSpec* spec = FindKind(StringAt(object, "apiVersion"), StringAt(object, "kind"));
  if (spec == nullptr) return std::nullopt;
  return EncodeMessage(*spec, object);
}

std::optional<std::string> EncodeList(
    std::string_view api_version, std::string_view list_kind, const nlohmann::json& list_metadata,
    const std::vector<std::shared_ptr<const std::string>>& items) {
  const MessageSpec* spec = FindKind(api_version, list_kind);
  if (spec == nullptr) return std::nullopt;
  // Every list message is {1 metadata, 2 repeated items}: the metadata by the table, then
  // the items' messages as they are.
  std::string message = EncodeMessage(*spec, nlohmann::json{{"metadata", list_metadata}});
  for (const auto& item : items) AppendLen(message, 2, *item);
  return EncodeEnvelope({std::string(api_version), std::string(list_kind)}, message);
}

std::string EncodeObjectFromMessage(std::string_view api_version, std::string_view kind,
                                    std::string_view message) {
  return EncodeEnvelope({std::string(api_version), std::string(kind)}, message);
}

std::string EncodeWatchEventFromBody(std::string_view type, std::string_view body) {
  std::string raw_extension;
  AppendLen(raw_extension, 1, body);
  std::string out;
  AppendLen(out, 1, type);
  AppendLen(out, 2, raw_extension);
  return out;
}

std::optional<std::string> EncodeWatchEvent(std::string_view type, const nlohmann::json& object) {
  auto body = EncodeObject(object);
  if (!body) return std::nullopt;
  return EncodeWatchEventFromBody(type, *body);
}

}  // namespace apimachinery::protobuf
