#include "pkg/genericserver/apimachinery/gourl/url.h"

#include <algorithm>

#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace apimachinery::gourl {
namespace {

enum class Mode { kPath, kUserPassword, kHost, kZone, kFragment };

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
  static constexpr std::string_view kAllowed = "-._~!$&'()*+,;=:[]<>\"";
  return kAllowed.find(static_cast<char>(c)) == std::string_view::npos;
}

std::string Quoted(std::string_view s) { return validation::GoQuote(s); }

// url.unescape: the unescaped text, or Go's EscapeError / InvalidHostError text.
std::expected<std::string, std::string> Unescape(std::string_view s, Mode mode) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '%') {
      if (i + 2 >= s.size() || !IsHex(s[i + 1]) || !IsHex(s[i + 2])) {
        return std::unexpected("invalid URL escape " + Quoted(s.substr(i, 3)));
      }
      const std::string_view escape = s.substr(i, 3);
      const int value = Unhex(s[i + 1]) << 4 | Unhex(s[i + 2]);
      if (mode == Mode::kHost && Unhex(s[i + 1]) < 8 && escape != "%25") {
        return std::unexpected("invalid URL escape " + Quoted(escape));
      }
      if (mode == Mode::kZone && escape != "%25" && value != ' ' &&
          HostMustEscape(static_cast<unsigned char>(value))) {
        return std::unexpected("invalid URL escape " + Quoted(escape));
      }
      out += static_cast<char>(value);
      i += 3;
      continue;
    }
    if ((mode == Mode::kHost || mode == Mode::kZone) && c < 0x80 && HostMustEscape(c)) {
      return std::unexpected("invalid character " + Quoted(s.substr(i, 1)) + " in host name");
    }
    out += s[i];
    ++i;
  }
  return out;
}

bool ValidOptionalPort(std::string_view port) {
  if (port.empty()) return true;
  if (port[0] != ':') return false;
  return std::all_of(port.begin() + 1, port.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::expected<std::string, std::string> ParseHost(std::string_view host) {
  if (host.starts_with('[')) {
    const size_t close = host.rfind(']');
    if (close == std::string_view::npos) return std::unexpected("missing ']' in host");
    const std::string_view port = host.substr(close + 1);
    if (!ValidOptionalPort(port)) {
      return std::unexpected("invalid port " + Quoted(port) + " after host");
    }
    if (const size_t zone = host.substr(0, close).find("%25"); zone != std::string_view::npos) {
      auto a = Unescape(host.substr(0, zone), Mode::kHost);
      if (!a) return a;
      auto b = Unescape(host.substr(zone, close - zone), Mode::kZone);
      if (!b) return b;
      auto c = Unescape(host.substr(close), Mode::kHost);
      if (!c) return c;
      return *a + *b + *c;
    }
  } else if (const size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    const std::string_view port = host.substr(colon);
    if (!ValidOptionalPort(port)) {
      return std::unexpected("invalid port " + Quoted(port) + " after host");
    }
  }
  return Unescape(host, Mode::kHost);
}

bool ValidUserinfo(std::string_view s) {
  static constexpr std::string_view kAllowed = "-._:~!$&'()*+,;=%@";
  return std::all_of(s.begin(), s.end(), [](char ch) {
    // Go ranges over runes: every non-ASCII one is refused too.
    return IsAlnum(static_cast<unsigned char>(ch)) || kAllowed.find(ch) != std::string_view::npos;
  });
}

// parse(rawURL, viaRequest): the error without the "parse ..." wrapping.
std::expected<URL, std::string> ParseWithoutFragment(std::string_view raw, bool request_uri) {
  URL url;
  for (char c : raw) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return std::unexpected("net/url: invalid control character in URL");
    }
  }
  if (raw.empty() && request_uri) return std::unexpected("empty url");
  if (raw == "*") {
    url.raw_path = "*";
    return url;
  }
  std::string_view rest = raw;
  for (size_t i = 0; i < raw.size(); ++i) {  // getScheme
    const char c = raw[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
      if (i == 0) break;
      continue;
    }
    if (c == ':') {
      if (i == 0) return std::unexpected("missing protocol scheme");
      url.scheme = std::string(raw.substr(0, i));
      std::transform(url.scheme.begin(), url.scheme.end(), url.scheme.begin(),
                     [](char ch) { return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch; });
      rest = raw.substr(i + 1);
    }
    break;
  }
  if (rest.ends_with('?') && std::count(rest.begin(), rest.end(), '?') == 1) {
    rest.remove_suffix(1);  // ForceQuery
  } else if (const size_t q = rest.find('?'); q != std::string_view::npos) {
    url.raw_query = std::string(rest.substr(q + 1));
    rest = rest.substr(0, q);
  }
  if (!rest.starts_with('/')) {
    if (!url.scheme.empty()) {
      url.opaque = std::string(rest);
      return url;
    }
    if (request_uri) return std::unexpected("invalid URI for request");
    if (rest.substr(0, rest.find('/')).find(':') != std::string_view::npos) {
      return std::unexpected("first path segment in URL cannot contain colon");
    }
  }
  if ((!url.scheme.empty() || (!request_uri && !rest.starts_with("///"))) &&
      rest.starts_with("//")) {
    std::string_view authority = rest.substr(2);
    rest = {};
    if (const size_t slash = authority.find('/'); slash != std::string_view::npos) {
      rest = authority.substr(slash);
      authority = authority.substr(0, slash);
    }
    const size_t at = authority.rfind('@');
    auto host = ParseHost(at == std::string_view::npos ? authority : authority.substr(at + 1));
    if (!host) return std::unexpected(host.error());
    url.host = std::move(*host);
    if (at != std::string_view::npos) {
      const std::string_view userinfo = authority.substr(0, at);
      if (!ValidUserinfo(userinfo)) return std::unexpected("net/url: invalid userinfo");
      const size_t colon = userinfo.find(':');
      auto user = Unescape(userinfo.substr(0, colon), Mode::kUserPassword);
      if (!user) return std::unexpected(user.error());
      if (colon != std::string_view::npos) {
        auto password = Unescape(userinfo.substr(colon + 1), Mode::kUserPassword);
        if (!password) return std::unexpected(password.error());
      }
      url.has_user = true;
      url.user = std::string(userinfo);
    }
  }
  auto path = Unescape(rest, Mode::kPath);
  if (!path) return std::unexpected(path.error());
  url.raw_path = std::string(rest);
  return url;
}

}  // namespace

std::expected<URL, std::string> Parse(std::string_view raw, bool request_uri) {
  std::string_view without = raw, fragment;
  bool has_fragment = false;
  if (!request_uri) {
    if (const size_t hash = raw.find('#'); hash != std::string_view::npos) {
      without = raw.substr(0, hash);
      fragment = raw.substr(hash + 1);
      has_fragment = true;
    }
  }
  auto url = ParseWithoutFragment(without, request_uri);
  if (!url) return std::unexpected("parse " + Quoted(without) + ": " + url.error());
  if (has_fragment) {
    auto unescaped = Unescape(fragment, Mode::kFragment);
    if (!unescaped) return std::unexpected("parse " + Quoted(raw) + ": " + unescaped.error());
    url->fragment = std::move(*unescaped);
  }
  return url;
}

}  // namespace apimachinery::gourl
