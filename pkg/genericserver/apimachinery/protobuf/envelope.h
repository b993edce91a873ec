#pragma once
// The envelope of a Kubernetes protobuf body (Content-Type application/vnd.kubernetes.protobuf):
// the 4-byte magic "k8s\0" followed by a runtime.Unknown message that carries the TypeMeta and
// the encoded object.

#include <expected>
#include <string>
#include <string_view>

namespace apimachinery::protobuf {

struct TypeMeta {
  std::string api_version;
  std::string kind;
};

// runtime.Unknown: 1 typeMeta, 2 raw, 3 contentEncoding, 4 contentType.
struct Envelope {
  TypeMeta type;
  std::string raw;  // the object's own message
  std::string content_encoding;
  std::string content_type;
};

// The magic every Kubernetes protobuf body starts with.
inline constexpr std::string_view kMagic{"k8s\0", 4};

// Decodes the magic and the runtime.Unknown that follows; an error message when the bytes are
// not that (no magic, truncated or malformed fields).
std::expected<Envelope, std::string> DecodeEnvelope(std::string_view body);

// The magic and the runtime.Unknown around an encoded object, as upstream writes them.
std::string EncodeEnvelope(const TypeMeta& type, std::string_view raw);

}  // namespace apimachinery::protobuf
