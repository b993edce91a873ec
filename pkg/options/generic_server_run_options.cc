#include "pkg/options/generic_server_run_options.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include "pkg/pki/pki.h"
#include "pkg/util/strings.h"

namespace options {

void GenericServerRunOptions::AddFlags(FlagSet& fs) {
  fs.Section("Generic flags");
  fs.String("advertise-address", &advertise_address,
            "The IP address at which to advertise the apiserver to clients and in "
            "discovery. Defaults to --bind-address, or the host's first non-loopback "
            "address when that is unspecified or a loopback address.");
  fs.Int("max-requests-inflight", &max_requests_inflight,
         "The most get/list/watch requests served at once; 0 means no limit.");
  fs.Int("max-mutating-requests-inflight", &max_mutating_requests_inflight,
         "The most mutating requests served at once; 0 means no limit.");
  fs.Duration("request-timeout", &request_timeout,
              "How long a request that is not a watch or another stream may take before "
              "it is answered with 504 Timeout.");
  fs.Duration("shutdown-delay-duration", &shutdown_delay_duration,
              "After SIGTERM, how long to keep serving with /readyz failing before the "
              "listener closes.");
}

std::vector<std::string> GenericServerRunOptions::Validate() const {
  std::vector<std::string> errors;
  if (!advertise_address.empty() && pki::CanonicalIP(advertise_address).empty()) {
    errors.push_back("--advertise-address " + util::Quote(advertise_address) +
                     " is not a valid IP address");
  }
  if (max_requests_inflight < 0) {
    errors.push_back("--max-requests-inflight can not be negative value");
  }
  if (max_mutating_requests_inflight < 0) {
    errors.push_back("--max-mutating-requests-inflight can not be negative value");
  }
  if (request_timeout.count() < 0) errors.push_back("--request-timeout can not be negative value");
  if (shutdown_delay_duration.count() < 0) {
    errors.push_back("--shutdown-delay-duration can not be negative value");
  }
  return errors;
}

void GenericServerRunOptions::Complete(const std::string& bind_address) {
  if (!advertise_address.empty()) return;
  // As upstream's ResolveBindAddress: a loopback address is no address to advertise (the
  // `kubernetes` Endpoints may not hold one).
  advertise_address = IsUnspecifiedAddress(bind_address) || IsLoopbackAddress(bind_address)
                          ? DefaultHostAddress()
                          : bind_address;
}

bool IsUnspecifiedAddress(const std::string& ip) {
  std::string canonical = pki::CanonicalIP(ip);
  return canonical == "0.0.0.0" || canonical == "::";
}

bool IsLoopbackAddress(const std::string& ip) {
  std::string canonical = pki::CanonicalIP(ip);
  return canonical.starts_with("127.") || canonical == "::1";
}

std::string DefaultHostAddress() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "127.0.0.1";
  std::string found;
  for (ifaddrs* a = list; a && found.empty(); a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
    if (!(a->ifa_flags & IFF_UP) || (a->ifa_flags & IFF_LOOPBACK)) continue;
    char buf[INET_ADDRSTRLEN];
    auto* sin = reinterpret_cast<sockaddr_in*>(a->ifa_addr);
    if (inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof buf)) found = buf;
  }
  freeifaddrs(list);
  return found.empty() ? "127.0.0.1" : found;
}

}  // namespace options
