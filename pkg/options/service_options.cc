#include "pkg/options/service_options.h"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <tuple>

#include "pkg/util/log.h"
#include "pkg/util/strings.h"

namespace options {
namespace {
constexpr char kDefaultServiceRange[] = "10.0.0.0/24";
}  // namespace

std::optional<CIDR> ParseCIDR(std::string_view text) {
  size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::string ip(text.substr(0, slash));
  std::string_view bits = text.substr(slash + 1);
  int prefix = -1;
  auto [p, ec] = std::from_chars(bits.data(), bits.data() + bits.size(), prefix);
  if (ec != std::errc() || p != bits.data() + bits.size() || bits.empty()) return std::nullopt;
  unsigned char addr[16] = {};
  CIDR cidr;
  int len = 0;
  if (inet_pton(AF_INET, ip.c_str(), addr) == 1) {
    len = 4;
  } else if (inet_pton(AF_INET6, ip.c_str(), addr) == 1) {
    len = 16;
    cidr.v6 = true;
  } else {
    return std::nullopt;
  }
  if (prefix < 0 || prefix > len * 8) return std::nullopt;
  // Mask host bits, as Go's net.ParseCIDR does.
  for (int i = 0; i < len; ++i) {
    int keep = std::clamp(prefix - i * 8, 0, 8);
    addr[i] &= static_cast<unsigned char>(0xff00 >> keep);
  }
  char out[INET6_ADDRSTRLEN];
  inet_ntop(cidr.v6 ? AF_INET6 : AF_INET, addr, out, sizeof out);
  cidr.ip = out;
  cidr.prefix = prefix;
  return cidr;
}

std::optional<std::pair<int, int>> ParsePortRange(std::string_view text) {
  text = util::TrimSpace(text);
  const size_t sep = text.find_first_of("-+");
  if (sep == std::string_view::npos) return std::nullopt;
  auto number = [](std::string_view s) -> std::optional<int> {
    int n = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
    return n;
  };
  auto first = number(text.substr(0, sep));
  auto second = number(text.substr(sep + 1));
  if (!first || !second) return std::nullopt;
  const int last = text[sep] == '+' ? *first + *second : *second;
  if (*first < 0 || last > 65535 || last < *first) return std::nullopt;
  return std::pair{*first, last};
}

void ServiceOptions::AddFlags(FlagSet& fs) {
  fs.Section("Misc flags");
  fs.String("service-cluster-ip-range", &service_cluster_ip_range,
            "CIDR from which Service cluster IPs are allocated; two CIDRs of different "
            "families for dual stack (default 10.0.0.0/24).");
  fs.String("service-node-port-range", &service_node_port_range,
            "The ports NodePort and LoadBalancer services get node ports from, inclusive: "
            "'30000-32767' or '30000+2767'.");
}

std::vector<std::string> ServiceOptions::Validate() const {
  std::vector<std::string> errors;
  if (!ParsePortRange(service_node_port_range)) {
    errors.push_back("--service-node-port-range: unable to parse \"" + service_node_port_range +
                     "\" as a port range");
  }
  if (service_cluster_ip_range.empty()) return errors;
  std::vector<std::string> parts = util::Split(service_cluster_ip_range, ',');
  if (parts.size() > 2) {
    errors.push_back("--service-cluster-ip-range must not contain more than two entries");
    return errors;
  }
  std::vector<CIDR> parsed;
  for (size_t i = 0; i < parts.size(); ++i) {
    auto cidr = ParseCIDR(util::TrimSpace(parts[i]));
    if (!cidr) {
      errors.push_back("service-cluster-ip-range[" + std::to_string(i) + "] is not a valid cidr");
      continue;
    }
    const int max_bits = cidr->v6 ? 128 : 32;
    // Cluster IPs are allocated from a bitmap of at most 2^20 addresses.
    if (max_bits - cidr->prefix > 20) {
      std::string flag = i == 0 ? "--service-cluster-ip-range" : "--service-cluster-ip-range[1]";
      errors.push_back("specified " + flag + " is too large; for " + std::to_string(max_bits) +
                       "-bit addresses, the mask must be >= " + std::to_string(max_bits - 20));
    }
    parsed.push_back(*cidr);
  }
  if (parsed.size() == 2 && parsed[0].v6 == parsed[1].v6) {
    errors.push_back(
        "--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP "
        "family");
  }
  return errors;
}

void ServiceOptions::Complete() {
  if (service_cluster_ip_range.empty()) {
    KLOG_V(1) << "No CIDR for service cluster IPs specified. Using " << kDefaultServiceRange;
    service_cluster_ip_range = kDefaultServiceRange;
  }
  if (auto ports = ParsePortRange(service_node_port_range)) {
    std::tie(node_port_first, node_port_last) = *ports;
  }
  ranges.clear();
  for (const std::string& part : util::Split(service_cluster_ip_range, ',')) {
    if (auto cidr = ParseCIDR(util::TrimSpace(part))) ranges.push_back(*cidr);
  }
}

std::string ServiceOptions::FirstServiceIP() const {
  if (ranges.empty()) return "";
  const CIDR& c = ranges.front();
  unsigned char addr[16] = {};
  inet_pton(c.v6 ? AF_INET6 : AF_INET, c.ip.c_str(), addr);
  const int len = c.v6 ? 16 : 4;
  for (int i = len - 1; i >= 0; --i) {
    if (++addr[i] != 0) break;
  }
  char out[INET6_ADDRSTRLEN];
  inet_ntop(c.v6 ? AF_INET6 : AF_INET, addr, out, sizeof out);
  return out;
}

}  // namespace options
