#pragma once
// What /version reports. kubectl's dispatcher picks its kubectl build by `minor`.

#include <string>

namespace genericserver {

struct VersionInfo {
  std::string major;
  std::string minor;
  std::string git_version;  // "v1.32.0-cpp.<our version>"
  std::string git_commit;
  std::string git_tree_state;
  std::string build_date;
  std::string go_version;  // no Go here: empty
  std::string compiler;
  std::string platform;
};

// This build's version (values fixed at configure time).
const VersionInfo& BuildVersion();
// The /version document: two-space indented JSON, upstream's field order.
std::string EncodeVersion(const VersionInfo& v);

}  // namespace genericserver
