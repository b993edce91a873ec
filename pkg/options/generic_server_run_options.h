#pragma once
// Generic flags: --advertise-address, the in-flight limits, --request-timeout,
// --shutdown-delay-duration.

#include <string>
#include <vector>

#include "pkg/options/flagset.h"

namespace options {

struct GenericServerRunOptions {
  std::string advertise_address;  // default: the bind address, else a host interface
  int max_requests_inflight = 400;
  int max_mutating_requests_inflight = 200;
  util::Duration request_timeout = std::chrono::seconds(60);
  util::Duration shutdown_delay_duration{0};

  void AddFlags(FlagSet& fs);
  std::vector<std::string> Validate() const;
  // Fills advertise_address from bind_address or the host's first non-loopback address.
  void Complete(const std::string& bind_address);
};

// The first non-loopback IPv4 address of an interface that is up, else 127.0.0.1.
std::string DefaultHostAddress();
bool IsUnspecifiedAddress(const std::string& ip);
bool IsLoopbackAddress(const std::string& ip);

}  // namespace options
