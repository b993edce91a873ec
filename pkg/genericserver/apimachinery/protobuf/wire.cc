#include "pkg/genericserver/apimachinery/protobuf/wire.h"

#include <string>

namespace apimachinery::protobuf {
namespace {

constexpr std::string_view kUnexpectedEOF = "unexpected EOF";
// Deeper nesting of groups than this in a skipped field is refused rather than followed.
constexpr int kMaxGroupDepth = 100;

}  // namespace

void AppendVarint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void AppendTag(std::string& out, std::int32_t field, WireType type) {
  AppendVarint(out, (static_cast<std::uint64_t>(field) << 3) | static_cast<std::uint64_t>(type));
}

void AppendLen(std::string& out, std::int32_t field, std::string_view bytes) {
  AppendTag(out, field, WireType::kLen);
  AppendVarint(out, bytes.size());
  out.append(bytes);
}

std::string_view WireTypeName(WireType type) {
  switch (type) {
    case WireType::kVarint:
      return "varint";
    case WireType::kFixed64:
      return "fixed64";
    case WireType::kLen:
      return "bytes";
    case WireType::kStartGroup:
      return "start group";
    case WireType::kEndGroup:
      return "end group";
    case WireType::kFixed32:
      return "fixed32";
  }
  return "unknown";
}

std::expected<void, std::string> Reader::Advance(std::size_t n) {
  if (n > data_.size() - pos_) return std::unexpected(std::string(kUnexpectedEOF));
  pos_ += n;
  return {};
}

std::expected<std::uint64_t, std::string> Reader::ReadVarint() {
  std::uint64_t value = 0;
  for (unsigned shift = 0;; shift += 7) {
    if (shift >= 64) return std::unexpected("proto: integer overflow");
    if (pos_ >= data_.size()) return std::unexpected(std::string(kUnexpectedEOF));
    const auto b = static_cast<unsigned char>(data_[pos_++]);
    value |= static_cast<std::uint64_t>(b & 0x7F) << shift;
    if (b < 0x80) return value;
  }
}

std::expected<Tag, std::string> Reader::ReadTag() {
  auto key = ReadVarint();
  if (!key) return std::unexpected(key.error());
  // As Go's generated code does: the field number is the key shifted, taken as an int32.
  const auto field = static_cast<std::int32_t>(static_cast<std::uint32_t>(*key >> 3));
  const auto type = static_cast<unsigned>(*key & 7);
  if (field <= 0) {
    return std::unexpected("proto: illegal tag " + std::to_string(field) + " (wire type " +
                           std::to_string(type) + ")");
  }
  if (type > 5) return std::unexpected("proto: illegal wireType " + std::to_string(type));
  if (type == static_cast<unsigned>(WireType::kEndGroup)) {
    return std::unexpected("proto: wiretype end group for non-group");
  }
  return Tag{field, static_cast<WireType>(type)};
}

std::expected<std::string_view, std::string> Reader::ReadBytes() {
  auto length = ReadVarint();
  if (!length) return std::unexpected(length.error());
  if (*length > static_cast<std::uint64_t>(INT64_MAX)) {
    return std::unexpected("proto: negative length found during unmarshaling");
  }
  if (*length > data_.size() - pos_) return std::unexpected(std::string(kUnexpectedEOF));
  const std::string_view value = data_.substr(pos_, static_cast<std::size_t>(*length));
  pos_ += value.size();
  return value;
}

std::expected<void, std::string> Reader::Skip(WireType type) {
  int depth = 0;
  for (;;) {
    switch (type) {
      case WireType::kVarint: {
        auto v = ReadVarint();
        if (!v) return std::unexpected(v.error());
        break;
      }
      case WireType::kFixed64: {
        auto r = Advance(8);
        if (!r) return r;
        break;
      }
      case WireType::kFixed32: {
        auto r = Advance(4);
        if (!r) return r;
        break;
      }
      case WireType::kLen: {
        auto b = ReadBytes();
        if (!b) return std::unexpected(b.error());
        break;
      }
      case WireType::kStartGroup:
        if (++depth > kMaxGroupDepth) return std::unexpected("proto: groups nested too deeply");
        break;
      case WireType::kEndGroup:
        if (depth == 0) return std::unexpected("proto: unexpected end of group");
        --depth;
        break;
    }
    if (depth == 0) return {};
    // Inside a group: the next key, whose value is skipped in turn.
    auto key = ReadVarint();
    if (!key) return std::unexpected(key.error());
    const auto next = static_cast<unsigned>(*key & 7);
    if (next > 5) return std::unexpected("proto: illegal wireType " + std::to_string(next));
    type = static_cast<WireType>(next);
  }
}

}  // namespace apimachinery::protobuf
