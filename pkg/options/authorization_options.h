#pragma once
// --authorization-mode and the Webhook mode's --authorization-webhook-*.

#include <string>
#include <vector>

#include "pkg/options/flagset.h"
#include "pkg/util/duration.h"

namespace options {

struct AuthorizationOptions {
  std::vector<std::string> modes = {"AlwaysAllow"};
  std::string webhook_config_file;
  std::string webhook_version = "v1beta1";
  util::Duration webhook_cache_authorized_ttl = std::chrono::minutes(5);
  util::Duration webhook_cache_unauthorized_ttl = std::chrono::seconds(30);

  void AddFlags(FlagSet& fs);
  std::vector<std::string> Validate() const;
};

}  // namespace options
