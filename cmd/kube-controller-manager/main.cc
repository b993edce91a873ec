// kube-controller-manager: parse flags -> validate (every error at once, exit 1) -> Run.
#include <iostream>
#include <string>
#include <vector>

#include "pkg/controllermanager/controllermanager.h"
#include "pkg/genericserver/server/version.h"
#include "pkg/options/flagset.h"
#include "pkg/util/log.h"

int main(int argc, char** argv) {
  controllermanager::KubeControllerManagerOptions opts;
  options::FlagSet flags("kube-controller-manager");
  opts.AddFlags(flags);
  std::vector<std::string> errors = flags.Parse(std::vector<std::string>(argv + 1, argv + argc));
  if (opts.help) {
    std::cout << "The Kubernetes controller manager is a daemon that embeds the core control "
                 "loops shipped with Kubernetes.\n\n"
              << flags.Usage();
    return 0;
  }
  if (opts.version) {
    std::cout << "Kubernetes " << genericserver::BuildVersion().git_version << "\n";
    return 0;
  }
  for (std::string& e : opts.Validate()) errors.push_back(std::move(e));
  if (!errors.empty()) {
    for (const std::string& e : errors) std::cerr << "Error: " << e << "\n";
    return 1;
  }
  util::log::SetVerbosity(opts.verbosity);
  return controllermanager::Run(opts);
}
