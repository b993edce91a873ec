// The "uri" format: govalidator.IsRequestURI, i.e. whether Go's net/url.ParseRequestURI accepts
// the text (Go 1.23's parse with viaRequest set).

#include <string>

#include "pkg/apiextensions/schema/format_checks.h"

namespace apiextensions::schema::formats {

namespace {

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int Unhex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

bool IsAlnum(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// shouldEscape(c, encodeHost): the ASCII bytes a host may not carry unescaped.
bool HostMustEscape(unsigned char c) {
  if (IsAlnum(c)) return false;
  switch (c) {
    case '!':
    case '$':
    case '&':
    case '\'':
    case '(':
    case ')':
    case '*':
    case '+':
    case ',':
    case ';':
    case '=':
    case ':':
    case '[':
    case ']':
    case '<':
    case '>':
    case '"':
    case '-':
    case '_':
    case '.':
    case '~':
      return false;
    default:
      return true;
  }
}

enum class Mode { kPath, kUserPassword, kHost, kZone };

// url.unescape's validation: well-formed %XX escapes, and for hosts the byte rules.
bool Unescapable(std::string_view s, Mode mode) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '%') {
      if (i + 2 >= s.size() || !IsHex(s[i + 1]) || !IsHex(s[i + 2])) return false;
      const std::string_view escape = s.substr(i, 3);
      if (mode == Mode::kHost && Unhex(s[i + 1]) < 8 && escape != "%25") return false;
      if (mode == Mode::kZone) {
        const int value = Unhex(s[i + 1]) << 4 | Unhex(s[i + 2]);
        if (escape != "%25" && value != ' ' && HostMustEscape(static_cast<unsigned char>(value))) {
          return false;
        }
      }
      i += 3;
      continue;
    }
    if ((mode == Mode::kHost || mode == Mode::kZone) && c < 0x80 && HostMustEscape(c)) {
      return false;
    }
    ++i;
  }
  return true;
}

bool ValidOptionalPort(std::string_view port) {
  if (port.empty()) return true;
  if (port[0] != ':') return false;
  for (char c : port.substr(1)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool ParseHost(std::string_view host) {
  if (!host.empty() && host[0] == '[') {
    const size_t close = host.rfind(']');
    if (close == std::string_view::npos) return false;
    if (!ValidOptionalPort(host.substr(close + 1))) return false;
    const size_t zone = host.substr(0, close).find("%25");
    if (zone != std::string_view::npos) {
      return Unescapable(host.substr(0, zone), Mode::kHost) &&
             Unescapable(host.substr(zone, close - zone), Mode::kZone) &&
             Unescapable(host.substr(close), Mode::kHost);
    }
  } else if (const size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    if (!ValidOptionalPort(host.substr(colon))) return false;
  }
  return Unescapable(host, Mode::kHost);
}

bool ValidUserinfo(std::string_view s) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (IsAlnum(c)) continue;
    switch (c) {
      case '-':
      case '.':
      case '_':
      case ':':
      case '~':
      case '!':
      case '$':
      case '&':
      case '\'':
      case '(':
      case ')':
      case '*':
      case '+':
      case ',':
      case ';':
      case '=':
      case '%':
      case '@':
        continue;
      default:
        // Go ranges over runes; every non-ASCII rune is refused as well.
        return false;
    }
  }
  return true;
}

bool ParseAuthority(std::string_view authority) {
  const size_t at = authority.rfind('@');
  if (at == std::string_view::npos) return ParseHost(authority);
  if (!ParseHost(authority.substr(at + 1))) return false;
  const std::string_view userinfo = authority.substr(0, at);
  if (!ValidUserinfo(userinfo)) return false;
  const size_t colon = userinfo.find(':');
  if (colon == std::string_view::npos) return Unescapable(userinfo, Mode::kUserPassword);
  return Unescapable(userinfo.substr(0, colon), Mode::kUserPassword) &&
         Unescapable(userinfo.substr(colon + 1), Mode::kUserPassword);
}

}  // namespace

bool IsRequestURI(std::string_view raw) {
  for (char ch : raw) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < ' ' || c == 0x7F) return false;
  }
  if (raw.empty()) return false;
  if (raw == "*") return true;

  // getScheme.
  std::string_view scheme, rest = raw;
  for (size_t i = 0; i < raw.size(); ++i) {
    const auto c = static_cast<unsigned char>(raw[i]);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
      if (i == 0) break;
      continue;
    }
    if (c == ':') {
      if (i == 0) return false;  // missing protocol scheme
      scheme = raw.substr(0, i);
      rest = raw.substr(i + 1);
    }
    break;
  }

  // The query is cut off and not checked.
  const size_t q = rest.find('?');
  if (q != std::string_view::npos) rest = rest.substr(0, q);

  if (rest.empty() || rest[0] != '/') {
    // Rootless paths are opaque when there is a scheme; otherwise not a request URI.
    return !scheme.empty();
  }
  if (!scheme.empty() && rest.starts_with("//")) {
    std::string_view authority = rest.substr(2);
    rest = {};
    if (const size_t slash = authority.find('/'); slash != std::string_view::npos) {
      rest = authority.substr(slash);
      authority = authority.substr(0, slash);
    }
    if (!ParseAuthority(authority)) return false;
  }
  return Unescapable(rest, Mode::kPath);
}

}  // namespace apiextensions::schema::formats
