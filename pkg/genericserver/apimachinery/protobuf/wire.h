#pragma once
// The protocol buffers wire format: tags, varints, length-delimited values and the
// skipping of unknown fields. Bounds are checked on every read; errors are the messages the
// caller reports (the request is then a 400).

#include <cstddef>
#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

namespace apimachinery::protobuf {

enum class WireType : std::uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLen = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

struct Tag {
  std::int32_t field = 0;
  WireType type = WireType::kVarint;
};

// Reads one message's bytes front to back.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}

  bool AtEnd() const { return pos_ >= data_.size(); }

  // The next field's key. Field numbers below 1 and wire types 6 and 7 are errors, and so is
  // an end-group marker outside a group.
  std::expected<Tag, std::string> ReadTag();
  // A base-128 varint of at most 10 bytes.
  std::expected<std::uint64_t, std::string> ReadVarint();
  // A length-delimited value (string, bytes, embedded message, packed repeated field).
  std::expected<std::string_view, std::string> ReadBytes();
  // Skips the value of a field of the given wire type (groups included, to their end).
  std::expected<void, std::string> Skip(WireType type);

 private:
  std::expected<void, std::string> Advance(std::size_t n);

  std::string_view data_;
  std::size_t pos_ = 0;
};

// Writing: a field's key, a varint, a length-delimited value.
void AppendVarint(std::string& out, std::uint64_t v);
void AppendTag(std::string& out, std::int32_t field, WireType type);
void AppendLen(std::string& out, std::int32_t field, std::string_view bytes);
inline void AppendVarintField(std::string& out, std::int32_t field, std::uint64_t v) {
  AppendTag(out, field, WireType::kVarint);
  AppendVarint(out, v);
}

// The wire type a field's value has, for error messages ("varint", "bytes", ...).
std::string_view WireTypeName(WireType type);

}  // namespace apimachinery::protobuf
