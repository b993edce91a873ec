#pragma once
// The address rules Endpoints and EndpointSlices share (upstream's IsValidIP,
// IsValidIPv4Address, IsValidIPv6Address and core validation's ValidateNonSpecialIP, Kubernetes
// 1.32 wording). IPs are parsed as k8s.io/utils/net.ParseIPSloppy does (Go 1.16's net.ParseIP:
// IPv4 fields may have leading zeros). Defined in endpoints.cc, but for the EndpointSlice one
// (endpointslices.cc).

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/registry/strategy.h"

namespace master::resources {

// "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)" when `ip` does not parse.
registry::FieldErrors ValidateIP(const std::string& field, const std::string& ip);
// "must be a valid IPv4 address" / "must be a valid IPv6 address" (an IPv4-mapped IPv6
// address counts as IPv4, as Go's To4 says).
registry::FieldErrors ValidateIPv4(const std::string& field, const std::string& ip);
registry::FieldErrors ValidateIPv6(const std::string& field, const std::string& ip);
// No unspecified, loopback (127.0.0.0/8, ::1), link-local (169.254.0.0/16, fe80::/10) or
// link-local multicast (224.0.0.0/24, ff02::/16) address: nonsensical as an endpoint, or
// node-centric. An unparsable `ip` gets "must be a valid IP address".
registry::FieldErrors ValidateNonSpecialIP(const std::string& field, const std::string& ip);

// Every subsets[i].addresses[j].ip and subsets[i].notReadyAddresses[j].ip of an Endpoints
// object: ValidateIP, then ValidateNonSpecialIP (upstream's validateEndpointAddress, its IP
// part).
registry::FieldErrors ValidateEndpointsAddresses(const nlohmann::json& endpoints);
// Every endpoints[i].addresses[j] of an IPv4 or IPv6 EndpointSlice: ValidateIPv4 or
// ValidateIPv6, then ValidateNonSpecialIP (FQDN slices: nothing).
registry::FieldErrors ValidateEndpointSliceAddresses(const nlohmann::json& slice);

}  // namespace master::resources
