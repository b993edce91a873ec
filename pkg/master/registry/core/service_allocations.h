#pragma once
// The cluster IPs and node ports Services hold. Each one taken is a key of its own in
// storage (/ranges/serviceips/<ip>, /ranges/servicenodeports/<port>) naming the Service
// that holds it, so two API servers sharing etcd never hand out the same one: whoever
// creates the key first has it.

#include <memory>
#include <string>

#include "pkg/genericserver/registry/allocations.h"
#include "pkg/genericserver/storage/interface.h"

namespace master::resources {

struct ServiceRanges {
  std::string cluster_ip_range = "10.0.0.0/24";  // the primary --service-cluster-ip-range
  int node_port_first = 30000;                   // --service-node-port-range
  int node_port_last = 32767;
};

// The IP family of a CIDR or address: "IPv4" or "IPv6".
std::string IPFamily(const std::string& cidr_or_ip);
// The first usable address of a CIDR ("10.0.0.0/24" -> "10.0.0.1"), where the
// `kubernetes` Service lives.
std::string FirstIP(const std::string& cidr);

std::shared_ptr<registry::Allocations> NewServiceAllocations(
    std::shared_ptr<storage::Interface> storage, ServiceRanges ranges);

}  // namespace master::resources
