// The address rules of Endpoints and EndpointSlices (endpoint_addresses.h): IPs parsed as
// upstream's ParseIPSloppy, no unspecified, loopback, link-local or link-local multicast
// address, with upstream's paths and messages.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/master/registry/core/endpoint_addresses.h"

using nlohmann::json;
namespace r = master::resources;

namespace {

std::vector<std::string> Strings(const registry::FieldErrors& errors) {
  std::vector<std::string> out;
  for (const auto& e : errors) out.push_back(apimachinery::validation::ErrorString(e));
  return out;
}

std::vector<std::string> Special(const std::string& ip) {
  return Strings(r::ValidateNonSpecialIP("ip", ip));
}

}  // namespace

TEST_CASE("endpoint addresses: ordinary addresses pass", "[builtin]") {
  for (const char* ip : {"10.0.0.1", "192.0.2.2", "8.8.8.8", "010.001.000.001", "2001:db8::1",
                         "fd00::1", "::ffff:10.0.0.1", "1:2:3:4:5:6:7:8", "ff05::1", "224.0.1.1",
                         "169.253.255.255", "126.255.255.255", "::2"}) {
    INFO(ip);
    CHECK(r::ValidateIP("ip", ip).empty());
    CHECK(Special(ip).empty());
  }
}

TEST_CASE("endpoint addresses: special addresses are refused as upstream says", "[builtin]") {
  const std::string loopback = "may not be in the loopback range (127.0.0.0/8, ::1/128)";
  const std::string link_local = "may not be in the link-local range (169.254.0.0/16, fe80::/10)";
  const std::string multicast =
      "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)";
  CHECK(Special("0.0.0.0") ==
        std::vector<std::string>{"ip: Invalid value: \"0.0.0.0\": may not be unspecified "
                                 "(0.0.0.0)"});
  CHECK(Special("::") ==
        std::vector<std::string>{"ip: Invalid value: \"::\": may not be unspecified (::)"});
  CHECK(Special("127.0.0.1") ==
        std::vector<std::string>{"ip: Invalid value: \"127.0.0.1\": " + loopback});
  CHECK(Special("127.255.0.9") ==
        std::vector<std::string>{"ip: Invalid value: \"127.255.0.9\": " + loopback});
  CHECK(Special("::1") == std::vector<std::string>{"ip: Invalid value: \"::1\": " + loopback});
  CHECK(Special("::ffff:127.0.0.1") ==
        std::vector<std::string>{"ip: Invalid value: \"::ffff:127.0.0.1\": " + loopback});
  CHECK(Special("169.254.169.254") ==
        std::vector<std::string>{"ip: Invalid value: \"169.254.169.254\": " + link_local});
  CHECK(Special("fe80::1") ==
        std::vector<std::string>{"ip: Invalid value: \"fe80::1\": " + link_local});
  CHECK(Special("febf::1") ==
        std::vector<std::string>{"ip: Invalid value: \"febf::1\": " + link_local});
  CHECK(Special("224.0.0.251") ==
        std::vector<std::string>{"ip: Invalid value: \"224.0.0.251\": " + multicast});
  CHECK(Special("ff02::1") ==
        std::vector<std::string>{"ip: Invalid value: \"ff02::1\": " + multicast});
  CHECK(Special("ff12::1") ==
        std::vector<std::string>{"ip: Invalid value: \"ff12::1\": " + multicast});
}

TEST_CASE("endpoint addresses: what does not parse", "[builtin]") {
  for (const char* ip : {"", "nope", "1.2.3", "1.2.3.4.5", "256.0.0.1", "1.2.3.4:80", "::1::",
                         "1:2:3:4:5:6:7:8:9", "fe80::1%eth0", "12345::", "[::1]", "1.2.3.-4"}) {
    INFO(ip);
    CHECK(Strings(r::ValidateIP("ip", ip)) ==
          std::vector<std::string>{"ip: Invalid value: \"" + std::string(ip) +
                                   "\": must be a valid IP address, (e.g. 10.9.8.7 or "
                                   "2001:db8::ffff)"});
    CHECK(Special(ip) == std::vector<std::string>{"ip: Invalid value: \"" + std::string(ip) +
                                                  "\": must be a valid IP address"});
  }
}

TEST_CASE("endpoint addresses: Endpoints subsets, ready and not ready", "[builtin]") {
  json ep = json::parse(R"({"subsets": [
      {"addresses": [{"ip": "10.0.0.1"}, {"ip": "127.0.0.1"}],
       "notReadyAddresses": [{"ip": "x"}]},
      {"addresses": [{"ip": "169.254.1.1"}]}]})");
  CHECK(Strings(r::ValidateEndpointsAddresses(ep)) ==
        std::vector<std::string>{
            "subsets[0].addresses[1].ip: Invalid value: \"127.0.0.1\": may not be in the loopback "
            "range (127.0.0.0/8, ::1/128)",
            "subsets[0].notReadyAddresses[0].ip: Invalid value: \"x\": must be a valid IP "
            "address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
            "subsets[0].notReadyAddresses[0].ip: Invalid value: \"x\": must be a valid IP "
            "address",
            "subsets[1].addresses[0].ip: Invalid value: \"169.254.1.1\": may not be in the "
            "link-local range (169.254.0.0/16, fe80::/10)"});
  CHECK(r::ValidateEndpointsAddresses(json::parse(R"({"subsets": []})")).empty());
}

TEST_CASE("endpoint addresses: EndpointSlices check their family, then special addresses",
          "[builtin]") {
  json v4 = json::parse(R"({"addressType": "IPv4", "endpoints": [
      {"addresses": ["10.0.0.1", "::1"]}, {"addresses": ["127.0.0.2"]}]})");
  CHECK(Strings(r::ValidateEndpointSliceAddresses(v4)) ==
        std::vector<std::string>{
            "endpoints[0].addresses[1]: Invalid value: \"::1\": must be a valid IPv4 address",
            "endpoints[0].addresses[1]: Invalid value: \"::1\": may not be in the loopback "
            "range (127.0.0.0/8, ::1/128)",
            "endpoints[1].addresses[0]: Invalid value: \"127.0.0.2\": may not be in the "
            "loopback range (127.0.0.0/8, ::1/128)"});
  json v6 = json::parse(R"({"addressType": "IPv6", "endpoints": [
      {"addresses": ["2001:db8::1", "10.0.0.1", "::ffff:10.0.0.2"]}]})");
  CHECK(Strings(r::ValidateEndpointSliceAddresses(v6)) ==
        std::vector<std::string>{
            "endpoints[0].addresses[1]: Invalid value: \"10.0.0.1\": must be a valid IPv6 "
            "address",
            "endpoints[0].addresses[2]: Invalid value: \"::ffff:10.0.0.2\": must be a valid "
            "IPv6 address"});
  json fqdn = json::parse(R"({"addressType": "FQDN", "endpoints": [
      {"addresses": ["127.0.0.1"]}]})");
  CHECK(r::ValidateEndpointSliceAddresses(fqdn).empty());
}
