#pragma once
// A tiny protobuf encoder for test bodies, writing fields as Go's generated code for Kubernetes
// types does (every non-pointer string and number, every struct, in field order).

#include <cstdint>
#include <string>
#include <string_view>

namespace testing::protobuf_body {

inline std::string Varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}
inline std::string Key(int field, int wire_type) {
  return Varint(static_cast<std::uint64_t>(field) << 3 | static_cast<unsigned>(wire_type));
}
inline std::string Str(int field, std::string_view s) {
  return Key(field, 2) + Varint(s.size()) + std::string(s);
}
inline std::string Int(int field, std::uint64_t v) { return Key(field, 0) + Varint(v); }
inline std::string Entry(int field, std::string_view k, std::string_view v) {
  return Str(field, Str(1, k) + Str(2, v));
}
inline std::string Timestamp(std::int64_t seconds, std::int32_t nanos) {
  return Int(1, static_cast<std::uint64_t>(seconds)) +
         Int(2, static_cast<std::uint64_t>(static_cast<std::int64_t>(nanos)));
}

// ObjectMeta as Go marshals one with only name and namespace set: the six strings, generation
// and the zero creationTimestamp as an empty message.
inline std::string Meta(std::string_view name, std::string_view ns = "", std::string extra = "") {
  return Str(1, name) + Str(2, "") + Str(3, ns) + Str(4, "") + Str(5, "") + Str(6, "") + Int(7, 0) +
         Str(8, "") + extra;
}

inline std::string Body(std::string_view api_version, std::string_view kind, std::string_view raw) {
  return std::string("k8s\0", 4) + Str(1, Str(1, api_version) + Str(2, kind)) + Str(2, raw) +
         Str(3, "") + Str(4, "");
}

}  // namespace testing::protobuf_body
