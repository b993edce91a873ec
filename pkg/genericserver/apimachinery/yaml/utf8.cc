#include "pkg/genericserver/apimachinery/yaml/utf8.h"

namespace apimachinery::yaml::internal {

namespace {

enum class Utf8Error { kNone, kLeading, kIncomplete, kTrailing, kLength, kRange };

struct Decoded {
  char32_t rune = 0;
  std::size_t width = 1;
  Utf8Error error = Utf8Error::kNone;
};

// Decodes one sequence, classifying errors the way libyaml's reader names them.
Decoded DecodeOne(std::string_view s, std::size_t i) {
  Decoded d;
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) {
    d.rune = b;
    return d;
  }
  std::size_t width = 0;
  char32_t value = 0;
  if ((b & 0xE0) == 0xC0) {
    width = 2;
    value = b & 0x1F;
  } else if ((b & 0xF0) == 0xE0) {
    width = 3;
    value = b & 0x0F;
  } else if ((b & 0xF8) == 0xF0) {
    width = 4;
    value = b & 0x07;
  } else {
    d.error = Utf8Error::kLeading;
    return d;
  }
  if (i + width > s.size()) {
    d.error = Utf8Error::kIncomplete;
    return d;
  }
  for (std::size_t k = 1; k < width; ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) {
      d.error = Utf8Error::kTrailing;
      return d;
    }
    value = (value << 6) | (c & 0x3F);
  }
  if ((width == 2 && value < 0x80) || (width == 3 && value < 0x800) ||
      (width == 4 && value < 0x10000)) {
    d.error = Utf8Error::kLength;
    return d;
  }
  if ((value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF) {
    d.error = Utf8Error::kRange;
    return d;
  }
  d.rune = value;
  d.width = width;
  return d;
}

// The characters YAML 1.1 allows in a stream (libyaml's reader check).
bool AllowedInYAML(char32_t r) {
  return r == 0x09 || r == 0x0A || r == 0x0D || (r >= 0x20 && r <= 0x7E) || r == 0x85 ||
         (r >= 0xA0 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) ||
         (r >= 0x10000 && r <= 0x10FFFF);
}

}  // namespace

std::optional<std::string> CheckYAMLInput(std::string_view in) {
  for (std::size_t i = 0; i < in.size();) {
    const Decoded d = DecodeOne(in, i);
    switch (d.error) {
      case Utf8Error::kNone:
        break;
      case Utf8Error::kLeading:
        return "invalid leading UTF-8 octet";
      case Utf8Error::kIncomplete:
        return "incomplete UTF-8 octet sequence";
      case Utf8Error::kTrailing:
        return "invalid trailing UTF-8 octet";
      case Utf8Error::kLength:
        return "invalid length of a UTF-8 sequence";
      case Utf8Error::kRange:
        return "invalid Unicode character";
    }
    if (!AllowedInYAML(d.rune)) return "control characters are not allowed";
    i += d.width;
  }
  return std::nullopt;
}

namespace {

// How many leading bytes of s are valid UTF-8.
std::size_t ValidPrefix(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const Decoded d = DecodeOne(s, i);
    if (d.error != Utf8Error::kNone) break;
    i += d.width;
  }
  return i;
}

}  // namespace

std::string SanitizeUTF8(std::string_view s) {
  std::size_t i = ValidPrefix(s);
  if (i == s.size()) return std::string(s);
  std::string out(s.substr(0, i));
  while (i < s.size()) {
    const Decoded d = DecodeOne(s, i);
    if (d.error != Utf8Error::kNone) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    out.append(s.substr(i, d.width));
    i += d.width;
  }
  return out;
}

std::string ScalarText(std::string_view s) {
  std::size_t i = ValidPrefix(s);
  if (i == s.size()) return std::string(s);
  std::string repaired(s.substr(0, i));
  while (i < s.size()) {
    const Decoded d = DecodeOne(s, i);
    const auto b = static_cast<unsigned char>(s[i]);
    if (d.error != Utf8Error::kNone && (b == 0x85 || b == 0xA0)) {
      repaired.push_back('\xC2');
      repaired.push_back(static_cast<char>(b));
      ++i;
      continue;
    }
    repaired.append(s.substr(i, d.width));
    i += d.width;
  }
  return SanitizeUTF8(repaired);
}

std::size_t RuneWidth(unsigned char b) {
  if ((b & 0x80) == 0x00) return 1;
  if ((b & 0xE0) == 0xC0) return 2;
  if ((b & 0xF0) == 0xE0) return 3;
  if ((b & 0xF8) == 0xF0) return 4;
  return 1;
}

char32_t DecodeRuneAt(std::string_view s, std::size_t i) { return DecodeOne(s, i).rune; }

}  // namespace apimachinery::yaml::internal
