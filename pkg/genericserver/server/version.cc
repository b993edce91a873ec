#include "pkg/genericserver/server/version.h"

#include <nlohmann/json.hpp>

namespace genericserver {

std::string EncodeVersion(const VersionInfo& v) {
  nlohmann::ordered_json j = {
      {"major", v.major},
      {"minor", v.minor},
      {"gitVersion", v.git_version},
      {"gitCommit", v.git_commit},
      {"gitTreeState", v.git_tree_state},
      {"buildDate", v.build_date},
      {"goVersion", v.go_version},
      {"compiler", v.compiler},
      {"platform", v.platform},
  };
  return j.dump(2);
}

}  // namespace genericserver
