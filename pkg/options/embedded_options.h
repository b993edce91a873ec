#pragma once
// Ours, not upstream's: --data-dir (embedded store, generated PKI, admin kubeconfig)
// and --admin-kubeconfig.

#include <string>
#include <vector>

#include "pkg/options/flagset.h"

namespace options {

struct EmbeddedOptions {
  std::string data_dir = "/var/lib/kube-apiserver";
  std::string admin_kubeconfig;  // default <data-dir>/admin.kubeconfig

  void AddFlags(FlagSet& fs);
  std::vector<std::string> Validate() const;
};

}  // namespace options
