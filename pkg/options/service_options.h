#pragma once
// --service-cluster-ip-range: one CIDR, or two of different families (dual stack), and
// --service-node-port-range.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/options/flagset.h"

namespace options {

struct CIDR {
  std::string ip;  // canonical network address
  int prefix = 0;
  bool v6 = false;
};

// Parses "10.0.0.0/24" or "fd00::/108"; the address must be the network's own.
std::optional<CIDR> ParseCIDR(std::string_view text);
// Parses a port range, "30000-32767" or "30000+2767": its first and last port.
std::optional<std::pair<int, int>> ParsePortRange(std::string_view text);

struct ServiceOptions {
  std::string service_cluster_ip_range;  // default 10.0.0.0/24
  std::vector<CIDR> ranges;              // set by Complete()
  std::string service_node_port_range = "30000-32767";
  int node_port_first = 30000;  // set by Complete()
  int node_port_last = 32767;

  void AddFlags(FlagSet& fs);
  std::vector<std::string> Validate() const;
  void Complete();
  // The first address of the primary range: the kubernetes Service's cluster IP.
  std::string FirstServiceIP() const;
};

}  // namespace options
