#include "pkg/genericserver/apimachinery/protobuf/envelope.h"

#include <string>

#include "pkg/genericserver/apimachinery/protobuf/wire.h"

namespace apimachinery::protobuf {
namespace {

std::string WrongType(std::string_view message, std::string_view field, WireType type) {
  return "proto: wrong wireType = " + std::to_string(static_cast<int>(type)) + " for field " +
         std::string(field) + " of " + std::string(message);
}

// Reads a length-delimited field into out; later occurrences replace earlier ones.
std::expected<void, std::string> ReadString(Reader& reader, const Tag& tag,
                                            std::string_view message, std::string_view field,
                                            std::string& out) {
  if (tag.type != WireType::kLen) return std::unexpected(WrongType(message, field, tag.type));
  auto value = reader.ReadBytes();
  if (!value) return std::unexpected(value.error());
  out.assign(*value);
  return {};
}

std::expected<void, std::string> DecodeTypeMeta(std::string_view bytes, TypeMeta& out) {
  Reader reader(bytes);
  while (!reader.AtEnd()) {
    auto tag = reader.ReadTag();
    if (!tag) return std::unexpected(tag.error());
    std::expected<void, std::string> r;
    switch (tag->field) {
      case 1:
        r = ReadString(reader, *tag, "TypeMeta", "APIVersion", out.api_version);
        break;
      case 2:
        r = ReadString(reader, *tag, "TypeMeta", "Kind", out.kind);
        break;
      default:
        r = reader.Skip(tag->type);
    }
    if (!r) return r;
  }
  return {};
}

}  // namespace

std::expected<Envelope, std::string> DecodeEnvelope(std::string_view body) {
  if (!body.starts_with(kMagic)) {
    return std::unexpected(
        "provided data does not appear to be a protobuf message, expected prefix \"k8s\\x00\"");
  }
  Envelope envelope;
  Reader reader(body.substr(kMagic.size()));
  while (!reader.AtEnd()) {
    auto tag = reader.ReadTag();
    if (!tag) return std::unexpected(tag.error());
    std::expected<void, std::string> r;
    switch (tag->field) {
      case 1: {
        // An embedded message: a repeated occurrence merges into the first, as in Go.
        if (tag->type != WireType::kLen) {
          return std::unexpected(WrongType("Unknown", "TypeMeta", tag->type));
        }
        auto bytes = reader.ReadBytes();
        if (!bytes) return std::unexpected(bytes.error());
        r = DecodeTypeMeta(*bytes, envelope.type);
        break;
      }
      case 2:
        r = ReadString(reader, *tag, "Unknown", "Raw", envelope.raw);
        break;
      case 3:
        r = ReadString(reader, *tag, "Unknown", "ContentEncoding", envelope.content_encoding);
        break;
      case 4:
        r = ReadString(reader, *tag, "Unknown", "ContentType", envelope.content_type);
        break;
      default:
        r = reader.Skip(tag->type);
    }
    if (!r) return std::unexpected(r.error());
  }
  return envelope;
}

std::string EncodeEnvelope(const TypeMeta& type, std::string_view raw) {
  std::string type_meta;
  AppendLen(type_meta, 1, type.api_version);
  AppendLen(type_meta, 2, type.kind);
  std::string out(kMagic);
  AppendLen(out, 1, type_meta);
  AppendLen(out, 2, raw);
  AppendLen(out, 3, "");  // contentEncoding and contentType: empty, and always written
  AppendLen(out, 4, "");
  return out;
}

}  // namespace apimachinery::protobuf
