// core/v1 endpoints: the addresses behind a service, as the endpoints controller (or the
// bootstrap controller, for `kubernetes`) writes them. The address rules EndpointSlices share
// (endpoint_addresses.h) live here too.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/registry/object_meta.h"
#include "pkg/genericserver/registry/table.h"
#include "pkg/master/registry/builtin.h"
#include "pkg/master/registry/core/endpoint_addresses.h"
#include "pkg/master/registry/core/pod_defaults.h"
#include "pkg/master/registry/fields.h"
#include "pkg/master/registry/resources.h"
#include "pkg/master/registry/schema.h"

namespace master::resources {
namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

using IP = std::array<uint8_t, 16>;  // IPv4 addresses in their IPv4-mapped form

// Go's dtoi/xtoi: a decimal (base 10) or hex (base 16) number of at least one digit, refused
// once it reaches 0xFFFFFF; advances `s` past it.
std::optional<uint32_t> Number(std::string_view& s, int base) {
  uint32_t n = 0;
  size_t i = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (base == 16 && c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      break;
    }
    n = n * base + d;
    if (n >= 0xFFFFFF) return std::nullopt;
  }
  if (i == 0) return std::nullopt;
  s.remove_prefix(i);
  return n;
}

std::optional<std::array<uint8_t, 4>> ParseIPv4(std::string_view s) {
  std::array<uint8_t, 4> out{};
  for (size_t i = 0; i < 4; ++i) {
    if (i > 0) {
      if (s.empty() || s.front() != '.') return std::nullopt;
      s.remove_prefix(1);
    }
    auto n = Number(s, 10);
    if (!n || *n > 0xFF) return std::nullopt;
    out[i] = static_cast<uint8_t>(*n);
  }
  if (!s.empty()) return std::nullopt;
  return out;
}

IP Mapped(const std::array<uint8_t, 4>& v4) {
  IP ip{};
  ip[10] = ip[11] = 0xff;
  for (size_t i = 0; i < 4; ++i) ip[12 + i] = v4[i];
  return ip;
}

// Go 1.16's parseIPv6 (no zone), with a sloppy IPv4 tail.
std::optional<IP> ParseIPv6(std::string_view s) {
  IP ip{};
  int ellipsis = -1;
  if (s.starts_with("::")) {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) return ip;
  }
  size_t i = 0;
  while (i < 16) {
    std::string_view rest = s;
    auto n = Number(rest, 16);
    if (!n || *n > 0xFFFF) return std::nullopt;
    if (!rest.empty() && rest.front() == '.') {
      if ((ellipsis < 0 && i != 12) || i + 4 > 16) return std::nullopt;
      auto v4 = ParseIPv4(s);
      if (!v4) return std::nullopt;
      for (size_t k = 0; k < 4; ++k) ip[i + k] = (*v4)[k];
      s = {};
      i += 4;
      break;
    }
    ip[i] = static_cast<uint8_t>(*n >> 8);
    ip[i + 1] = static_cast<uint8_t>(*n);
    i += 2;
    s = rest;
    if (s.empty()) break;
    if (s.front() != ':' || s.size() == 1) return std::nullopt;
    s.remove_prefix(1);
    if (s.front() == ':') {
      if (ellipsis >= 0) return std::nullopt;
      ellipsis = static_cast<int>(i);
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }
  if (!s.empty()) return std::nullopt;
  if (i < 16) {
    if (ellipsis < 0) return std::nullopt;
    const size_t gap = 16 - i;
    for (int j = static_cast<int>(i) - 1; j >= ellipsis; --j) ip[j + gap] = ip[j];
    for (size_t j = ellipsis; j < ellipsis + gap; ++j) ip[j] = 0;
  } else if (ellipsis >= 0) {
    return std::nullopt;  // an ellipsis must stand for at least one group
  }
  return ip;
}

// k8s.io/utils/net.ParseIPSloppy: the first '.' or ':' decides the family.
std::optional<IP> ParseIPSloppy(std::string_view s) {
  for (char c : s) {
    if (c == '.') {
      auto v4 = ParseIPv4(s);
      return v4 ? std::optional<IP>(Mapped(*v4)) : std::nullopt;
    }
    if (c == ':') return ParseIPv6(s);
  }
  return std::nullopt;
}

// Go's IP.To4() != nil.
bool IsV4(const IP& ip) {
  for (size_t i = 0; i < 10; ++i) {
    if (ip[i] != 0) return false;
  }
  return ip[10] == 0xff && ip[11] == 0xff;
}

// "ip:port" pairs, at most three, then " + N more...", as kubectl prints them.
std::string FormatEndpoints(const json& ep) {
  std::vector<std::string> all;
  for (const json& subset : List(ep, "subsets")) {
    const json& ports = List(subset, "ports");
    for (const json& address : List(subset, "addresses")) {
      const std::string ip = Str(address, "ip");
      if (ports.empty()) {
        all.push_back(ip);
        continue;
      }
      for (const json& port : ports) all.push_back(ip + ":" + std::to_string(Int(port, "port")));
    }
  }
  if (all.empty()) return "<none>";
  std::string out;
  for (size_t i = 0; i < all.size() && i < 3; ++i) out += (i ? "," : "") + all[i];
  if (all.size() > 3) out += " + " + std::to_string(all.size() - 3) + " more...";
  return out;
}

}  // namespace

registry::FieldErrors ValidateEndpointsAddresses(const json& ep) {
  registry::FieldErrors errors;
  const json& subsets = List(ep, "subsets");
  for (size_t i = 0; i < subsets.size(); ++i) {
    for (const char* kind : {"addresses", "notReadyAddresses"}) {
      const json& addresses = List(subsets[i], kind);
      for (size_t j = 0; j < addresses.size(); ++j) {
        const std::string field =
            "subsets[" + std::to_string(i) + "]." + kind + "[" + std::to_string(j) + "].ip";
        const std::string ip = Str(addresses[j], "ip");
        for (auto& e : ValidateIP(field, ip)) errors.push_back(std::move(e));
        for (auto& e : ValidateNonSpecialIP(field, ip)) errors.push_back(std::move(e));
      }
    }
  }
  return errors;
}

registry::FieldErrors ValidateIP(const std::string& field, const std::string& ip) {
  if (ParseIPSloppy(ip)) return {};
  return {
      v::FieldInvalid(field, ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")};
}

registry::FieldErrors ValidateIPv4(const std::string& field, const std::string& ip) {
  auto parsed = ParseIPSloppy(ip);
  if (parsed && IsV4(*parsed)) return {};
  return {v::FieldInvalid(field, ip, "must be a valid IPv4 address")};
}

registry::FieldErrors ValidateIPv6(const std::string& field, const std::string& ip) {
  auto parsed = ParseIPSloppy(ip);
  if (parsed && !IsV4(*parsed)) return {};
  return {v::FieldInvalid(field, ip, "must be a valid IPv6 address")};
}

registry::FieldErrors ValidateNonSpecialIP(const std::string& field, const std::string& ip) {
  auto parsed = ParseIPSloppy(ip);
  if (!parsed) return {v::FieldInvalid(field, ip, "must be a valid IP address")};
  const IP& a = *parsed;
  const bool v4 = IsV4(a);
  registry::FieldErrors errors;
  const IP zero{};
  IP loopback{};
  loopback[15] = 1;
  if ((v4 && a[12] == 0 && a[13] == 0 && a[14] == 0 && a[15] == 0) || a == zero) {
    errors.push_back(v::FieldInvalid(field, ip, "may not be unspecified (" + ip + ")"));
  }
  if (v4 ? a[12] == 127 : a == loopback) {
    errors.push_back(
        v::FieldInvalid(field, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
  }
  if (v4 ? a[12] == 169 && a[13] == 254 : a[0] == 0xfe && (a[1] & 0xc0) == 0x80) {
    errors.push_back(v::FieldInvalid(
        field, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
  }
  if (v4 ? a[12] == 224 && a[13] == 0 && a[14] == 0 : a[0] == 0xff && (a[1] & 0x0f) == 0x02) {
    errors.push_back(v::FieldInvalid(
        field, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"));
  }
  return errors;
}

registry::ResourceSpecPtr Endpoints() {
  KindHooks hooks;
  hooks.defaults = [](json& ep) {
    auto subsets = ep.find("subsets");
    if (subsets == ep.end() || !subsets->is_array()) return;
    for (json& subset : *subsets) {
      auto ports = subset.find("ports");
      if (ports == subset.end() || !ports->is_array()) continue;
      for (json& port : *ports) {
        if (port.is_object()) SetDefault(port, "protocol", "TCP");
      }
    }
  };
  hooks.validate = ValidateEndpointsAddresses;
  hooks.create_on_update = true;
  auto spec = Builtin("v1", "endpoints", std::move(hooks));
  spec->singular = "endpoints";
  spec->short_names = {"ep"};
  spec->columns = {
      registry::NameColumn(),
      {"Endpoints", "string", "", "The addresses and ports behind the service.", 0},
      registry::AgeColumn(),
  };
  spec->row = [](const json& ep, std::chrono::system_clock::time_point now) {
    return std::vector<json>{registry::MetaString(ep, "name"), FormatEndpoints(ep),
                             registry::Age(ep, now)};
  };
  return Finish(std::move(spec));
}

}  // namespace master::resources
