#pragma once
// --authorization-mode.

#include <string>
#include <vector>

#include "pkg/options/flagset.h"

namespace options {

struct AuthorizationOptions {
  std::vector<std::string> modes = {"AlwaysAllow"};

  void AddFlags(FlagSet& fs);
  std::vector<std::string> Validate() const;
};

}  // namespace options
