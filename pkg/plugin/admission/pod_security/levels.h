#pragma once
// Pod Security Standards levels and versions (k8s.io/pod-security-admission/api): a level
// (privileged, baseline, restricted) at a version ("latest" or "v1.<minor>"), as namespace
// labels and the PodSecurity configuration name them.

#include <expected>
#include <string>
#include <string_view>

namespace plugin::admission::pod_security {

enum class Level { kPrivileged, kBaseline, kRestricted };

// The newest version the checks know: 1.32's.
inline constexpr int kLatestMinor = 32;

struct LevelVersion {
  Level level = Level::kPrivileged;
  int minor = 0;  // 0: latest
  // The minor version the checks are run at (latest: kLatestMinor).
  int EffectiveMinor() const { return minor == 0 ? kLatestMinor : minor; }
  // "restricted:latest", "baseline:v1.30".
  std::string String() const;
};

std::string_view LevelName(Level level);
// "privileged", "baseline", "restricted"; the error is upstream's.
std::expected<Level, std::string> ParseLevel(std::string_view text);
// "latest" or "v1.<minor>" (0 for latest; later minors than the checks know are latest).
std::expected<int, std::string> ParseVersion(std::string_view text);

}  // namespace plugin::admission::pod_security
