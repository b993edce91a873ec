// --- IP addresses and CIDRs (Kubernetes' ip and cidr libraries over Go's net/netip) ------------

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/apiextensions/cel/library/internal.h"

namespace apiextensions::cel::internal {

namespace {

struct IpAddr {
  bool v6 = false;
  std::array<uint8_t, 16> b{};  // v4 uses the first 4 bytes
  size_t Len() const { return v6 ? 16 : 4; }
};

// netip.ParseAddr for addresses without zones; the error is netip's.
std::optional<IpAddr> ParseAddr(std::string_view s, std::string* err) {
  auto fail = [&](const std::string& why) {
    *err = "ParseAddr(" + Quote(s) + "): " + why;
    return std::nullopt;
  };
  if (s.empty()) return fail("unable to parse IP");
  IpAddr a;
  if (s.find(':') == std::string_view::npos) {
    size_t field = 0, pos = 0;
    while (true) {
      size_t start = pos;
      int v = 0;
      while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
        v = v * 10 + (s[pos] - '0');
        if (v > 255) return fail("IPv4 field has value >255");
        ++pos;
      }
      if (pos == start) return fail("unable to parse IP");
      if (pos - start > 1 && s[start] == '0') return fail("IPv4 field has octet with leading zero");
      if (field >= 4) return fail("IPv4 address too long");
      a.b[field++] = static_cast<uint8_t>(v);
      if (pos == s.size()) break;
      if (s[pos] != '.') return fail("unexpected character");
      ++pos;
    }
    if (field != 4) return fail("IPv4 address too short");
    return a;
  }
  std::string text(s);
  in6_addr addr{};
  if (inet_pton(AF_INET6, text.c_str(), &addr) != 1) return fail("unable to parse IP");
  a.v6 = true;
  std::memcpy(a.b.data(), &addr, 16);
  return a;
}

bool Is4In6(const IpAddr& a) {
  if (!a.v6) return false;
  for (int k = 0; k < 10; ++k) {
    if (a.b[k] != 0) return false;
  }
  return a.b[10] == 0xFF && a.b[11] == 0xFF;
}

// netip.Addr.String(): dotted quad, or RFC 5952 IPv6 (longest run of two or more zero groups
// compressed, the first of equal runs).
std::string AddrString(const IpAddr& a) {
  if (!a.v6) {
    return std::to_string(a.b[0]) + "." + std::to_string(a.b[1]) + "." + std::to_string(a.b[2]) +
           "." + std::to_string(a.b[3]);
  }
  uint16_t g[8];
  for (int k = 0; k < 8; ++k) g[k] = static_cast<uint16_t>((a.b[2 * k] << 8) | a.b[2 * k + 1]);
  int best = -1, best_len = 0;
  for (int k = 0; k < 8;) {
    if (g[k] != 0) {
      ++k;
      continue;
    }
    int j = k;
    while (j < 8 && g[j] == 0) ++j;
    if (j - k > best_len && j - k >= 2) {
      best = k;
      best_len = j - k;
    }
    k = j;
  }
  std::string out;
  char buf[8];
  for (int k = 0; k < 8; ++k) {
    if (k == best) {
      out += "::";
      k += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ":";
    std::snprintf(buf, sizeof(buf), "%x", g[k]);
    out += buf;
  }
  return out;
}

// Kubernetes' ip(): no zones, no IPv4-mapped IPv6.
std::optional<IpAddr> ParseK8sIp(std::string_view raw, std::string* err) {
  if (raw.find('%') != std::string_view::npos) {
    std::string inner;
    if (ParseAddr(raw.substr(0, raw.find('%')), &inner)) {
      *err = "IP address " + Quote(raw) + " with zone value is not allowed";
      return std::nullopt;
    }
  }
  std::string perr;
  auto a = ParseAddr(raw, &perr);
  if (!a) {
    *err = "IP Address " + Quote(raw) + " parse error during conversion from string: " + perr;
    return std::nullopt;
  }
  if (Is4In6(*a)) {
    *err = "IPv4-mapped IPv6 address " + Quote(raw) + " is not allowed";
    return std::nullopt;
  }
  return a;
}

struct Prefix {
  IpAddr addr;
  int bits = 0;
};

std::optional<Prefix> ParseK8sCidr(std::string_view raw, std::string* err) {
  auto fail = [&](const std::string& why) {
    *err = "network address " + Quote(raw) +
           " parse error during conversion from string: netip.ParsePrefix(" + Quote(raw) +
           "): " + why;
    return std::nullopt;
  };
  size_t slash = raw.rfind('/');
  if (slash == std::string_view::npos) return fail("no '/'");
  std::string_view addr_text = raw.substr(0, slash);
  if (addr_text.find('%') != std::string_view::npos)
    return fail("IPv6 zones cannot be present in a prefix");
  std::string perr;
  auto a = ParseAddr(addr_text, &perr);
  if (!a) return fail(perr);
  std::string_view bits_text = raw.substr(slash + 1);
  if (bits_text.empty() || bits_text.size() > 3 || (bits_text.size() > 1 && bits_text[0] == '0')) {
    return fail("bad bits after slash: " + Quote(bits_text));
  }
  int bits = 0;
  for (char c : bits_text) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return fail("bad bits after slash: " + Quote(bits_text));
    bits = bits * 10 + (c - '0');
  }
  if (bits > static_cast<int>(a->Len() * 8)) return fail("prefix length out of range");
  if (Is4In6(*a)) {
    *err = "IPv4-mapped IPv6 address " + Quote(raw) + " is not allowed";
    return std::nullopt;
  }
  return Prefix{*a, bits};
}

IpAddr Masked(IpAddr a, int bits) {
  for (size_t k = 0; k < a.Len(); ++k) {
    int keep = std::clamp(bits - static_cast<int>(k) * 8, 0, 8);
    a.b[k] = static_cast<uint8_t>(a.b[k] & (keep == 0 ? 0 : (0xFF << (8 - keep)) & 0xFF));
  }
  return a;
}

bool PrefixContains(const Prefix& p, const IpAddr& a) {
  if (p.addr.v6 != a.v6) return false;
  IpAddr x = Masked(p.addr, p.bits), y = Masked(a, p.bits);
  return x.b == y.b;
}

Value CidrValue(const Prefix& p) {
  return Value::CIDR(AddrString(p.addr) + "/" + std::to_string(p.bits));
}

// Values hold canonical text, which always parses.
IpAddr IpOf(const Value& v) {
  std::string err;
  return *ParseAddr(v.str(), &err);
}
Prefix PrefixOf(const Value& v) {
  std::string err;
  return *ParseK8sCidr(v.str(), &err);
}

}  // namespace

void RegisterNet(Builder& b) {
  auto S = StringType(), B = BoolType(), I = IntType();
  auto IP = IPType(), CIDR = CIDRType();
  b.Global("isIP", {S}, B, [](EvalContext&, const Args& a) {
    std::string err;
    return Value::Bool(ParseK8sIp(a[0].str(), &err).has_value());
  });
  b.Global("ip", {S}, IP, [](EvalContext&, const Args& a) {
    std::string err;
    auto ip = ParseK8sIp(a[0].str(), &err);
    if (!ip) return Value::Error(err);
    return Value::IP(AddrString(*ip));
  });
  b.Global("ip.isCanonical", {S}, B, [](EvalContext&, const Args& a) {
    std::string err;
    auto ip = ParseK8sIp(a[0].str(), &err);
    if (!ip) return Value::Error(err);
    return Value::Bool(AddrString(*ip) == a[0].str());
  });
  b.Member("family", {IP}, I,
           [](EvalContext&, const Args& a) { return Value::Int(IpOf(a[0]).v6 ? 6 : 4); });
  b.Member("isUnspecified", {IP}, B, [](EvalContext&, const Args& a) {
    IpAddr ip = IpOf(a[0]);
    return Value::Bool(std::all_of(ip.b.begin(), ip.b.begin() + static_cast<long>(ip.Len()),
                                   [](uint8_t x) { return x == 0; }));
  });
  auto loopback = [](const IpAddr& ip) {
    if (!ip.v6) return ip.b[0] == 127;
    for (int k = 0; k < 15; ++k) {
      if (ip.b[k] != 0) return false;
    }
    return ip.b[15] == 1;
  };
  b.Member("isLoopback", {IP}, B,
           [loopback](EvalContext&, const Args& a) { return Value::Bool(loopback(IpOf(a[0]))); });
  b.Member("isLinkLocalMulticast", {IP}, B, [](EvalContext&, const Args& a) {
    IpAddr ip = IpOf(a[0]);
    if (!ip.v6) return Value::Bool(ip.b[0] == 224 && ip.b[1] == 0 && ip.b[2] == 0);
    return Value::Bool(ip.b[0] == 0xFF && (ip.b[1] & 0x0F) == 0x02);
  });
  b.Member("isLinkLocalUnicast", {IP}, B, [](EvalContext&, const Args& a) {
    IpAddr ip = IpOf(a[0]);
    if (!ip.v6) return Value::Bool(ip.b[0] == 169 && ip.b[1] == 254);
    return Value::Bool(ip.b[0] == 0xFE && (ip.b[1] & 0xC0) == 0x80);
  });
  b.Member("isGlobalUnicast", {IP}, B, [loopback](EvalContext&, const Args& a) {
    IpAddr ip = IpOf(a[0]);
    bool unspecified = std::all_of(ip.b.begin(), ip.b.begin() + static_cast<long>(ip.Len()),
                                   [](uint8_t x) { return x == 0; });
    if (unspecified || loopback(ip)) return Value::Bool(false);
    if (!ip.v6) {
      bool multicast = (ip.b[0] & 0xF0) == 0xE0;
      bool link_local = ip.b[0] == 169 && ip.b[1] == 254;
      bool broadcast = ip.b[0] == 255 && ip.b[1] == 255 && ip.b[2] == 255 && ip.b[3] == 255;
      return Value::Bool(!multicast && !link_local && !broadcast);
    }
    bool multicast = ip.b[0] == 0xFF;
    bool link_local = ip.b[0] == 0xFE && (ip.b[1] & 0xC0) == 0x80;
    return Value::Bool(!multicast && !link_local);
  });
  b.Global("isCIDR", {S}, B, [](EvalContext&, const Args& a) {
    std::string err;
    return Value::Bool(ParseK8sCidr(a[0].str(), &err).has_value());
  });
  b.Global("cidr", {S}, CIDR, [](EvalContext&, const Args& a) {
    std::string err;
    auto p = ParseK8sCidr(a[0].str(), &err);
    if (!p) return Value::Error(err);
    return CidrValue(*p);
  });
  b.Member("containsIP", {CIDR, IP}, B, [](EvalContext&, const Args& a) {
    return Value::Bool(PrefixContains(PrefixOf(a[0]), IpOf(a[1])));
  });
  b.Member("containsIP", {CIDR, S}, B, [](EvalContext&, const Args& a) {
    std::string err;
    auto ip = ParseK8sIp(a[1].str(), &err);
    if (!ip) return Value::Error(err);
    return Value::Bool(PrefixContains(PrefixOf(a[0]), *ip));
  });
  auto contains_cidr = [](const Prefix& outer, const Prefix& inner) {
    return outer.addr.v6 == inner.addr.v6 && inner.bits >= outer.bits &&
           PrefixContains(outer, inner.addr);
  };
  b.Member("containsCIDR", {CIDR, CIDR}, B, [contains_cidr](EvalContext&, const Args& a) {
    return Value::Bool(contains_cidr(PrefixOf(a[0]), PrefixOf(a[1])));
  });
  b.Member("containsCIDR", {CIDR, S}, B, [contains_cidr](EvalContext&, const Args& a) {
    std::string err;
    auto p = ParseK8sCidr(a[1].str(), &err);
    if (!p) return Value::Error(err);
    return Value::Bool(contains_cidr(PrefixOf(a[0]), *p));
  });
  b.Member("ip", {CIDR}, IP,
           [](EvalContext&, const Args& a) { return Value::IP(AddrString(PrefixOf(a[0]).addr)); });
  b.Member("masked", {CIDR}, CIDR, [](EvalContext&, const Args& a) {
    Prefix p = PrefixOf(a[0]);
    p.addr = Masked(p.addr, p.bits);
    return CidrValue(p);
  });
  b.Member("prefixLength", {CIDR}, I,
           [](EvalContext&, const Args& a) { return Value::Int(PrefixOf(a[0]).bits); });
  for (const auto& t : {IP, CIDR}) {
    b.Global("string", {t}, S,
             [](EvalContext&, const Args& a) { return Value::String(a[0].str()); });
  }
}

}  // namespace apiextensions::cel::internal
