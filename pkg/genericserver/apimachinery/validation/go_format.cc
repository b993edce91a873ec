#include "pkg/genericserver/apimachinery/validation/go_format.h"

#include <cstdio>

namespace apimachinery::validation {

namespace {

constexpr char32_t kRuneError = 0xFFFD;

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The non-ASCII code points unicode.IsPrint rejects that a name or value is likely to carry:
// C1 controls, spaces other than U+0020, format characters, separators and private use.
bool IsPrintableNonAscii(char32_t r) {
  if (r < 0xA0) return false;  // C1 controls
  if (r == 0xA0 || r == 0xAD || r == 0x1680 || r == 0x180E) return false;
  if (r >= 0x2000 && r <= 0x200F) return false;
  if (r >= 0x2028 && r <= 0x202F) return false;
  if (r >= 0x205F && r <= 0x206F) return false;
  if (r == 0x3000 || r == 0xFEFF) return false;
  if (r >= 0xFFF9 && r <= 0xFFFB) return false;
  if (r >= 0xE000 && r <= 0xF8FF) return false;    // private use
  if (r >= 0xF0000) return false;                  // supplementary private use
  if ((r & 0xFFFE) == 0xFFFE) return false;        // noncharacters U+xxFFFE/U+xxFFFF
  if (r >= 0xFDD0 && r <= 0xFDEF) return false;    // noncharacters
  if (r >= 0xE0000 && r <= 0xE007F) return false;  // tags
  return true;
}

void AppendHex(std::string& out, const char* format, unsigned value) {
  char buf[16];
  std::snprintf(buf, sizeof buf, format, value);
  out += buf;
}

}  // namespace

DecodedRune DecodeRune(std::string_view s) {
  const auto b0 = static_cast<unsigned char>(s[0]);
  if (b0 < 0x80) return {b0, 1};
  size_t size = 0;
  char32_t rune = 0;
  char32_t min = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    size = 2, rune = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    size = 3, rune = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    size = 4, rune = b0 & 0x07, min = 0x10000;
  } else {
    return {kRuneError, 1};
  }
  if (s.size() < size) return {kRuneError, 1};
  for (size_t i = 1; i < size; ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (!IsContinuation(b)) return {kRuneError, 1};
    rune = (rune << 6) | (b & 0x3F);
  }
  if (rune < min || rune > 0x10FFFF || (rune >= 0xD800 && rune <= 0xDFFF)) {
    return {kRuneError, 1};
  }
  return {rune, size};
}

void AppendRune(std::string& out, char32_t r) {
  if (r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) r = kRuneError;
  if (r < 0x80) {
    out.push_back(static_cast<char>(r));
  } else if (r < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (r >> 6)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3F)));
  } else if (r < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (r >> 12)));
    out.push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (r >> 18)));
    out.push_back(static_cast<char>(0x80 | ((r >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3F)));
  }
}

std::string GoQuote(std::string_view s) {
  std::string out = "\"";
  out.reserve(s.size() + 2);
  while (!s.empty()) {
    const DecodedRune d = DecodeRune(s);
    const std::string_view raw = s.substr(0, d.size);
    s.remove_prefix(d.size);
    if (d.rune == kRuneError && d.size == 1) {
      AppendHex(out, "\\x%02x", static_cast<unsigned char>(raw[0]));
      continue;
    }
    const char32_t r = d.rune;
    if (r == '"' || r == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(r));
    } else if (r >= 0x20 && r < 0x7F) {
      out.push_back(static_cast<char>(r));
    } else if (r >= 0x80 && IsPrintableNonAscii(r)) {
      out.append(raw);
    } else {
      switch (r) {
        case '\a':
          out += "\\a";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\v':
          out += "\\v";
          break;
        default:
          if (r < 0x20 || r == 0x7F) {
            AppendHex(out, "\\x%02x", static_cast<unsigned>(r));
          } else if (r < 0x10000) {
            AppendHex(out, "\\u%04x", static_cast<unsigned>(r));
          } else {
            AppendHex(out, "\\U%08x", static_cast<unsigned>(r));
          }
      }
    }
  }
  out.push_back('"');
  return out;
}

std::string GoHTMLSafeJSON(std::string_view json_text) {
  std::string out;
  out.reserve(json_text.size());
  for (size_t i = 0; i < json_text.size(); ++i) {
    const char c = json_text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < json_text.size() && json_text[i + 1] == '\x80' &&
               (json_text[i + 2] == '\xA8' || json_text[i + 2] == '\xA9')) {
      out += json_text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string GoStringSlice(const std::vector<std::string>& values) {
  std::string out = "[]string{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += GoQuote(values[i]);
  }
  out += "}";
  return out;
}

}  // namespace apimachinery::validation
