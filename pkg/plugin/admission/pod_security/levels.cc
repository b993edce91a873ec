#include "pkg/plugin/admission/pod_security/levels.h"

#include <cctype>

namespace plugin::admission::pod_security {

std::string_view LevelName(Level level) {
  switch (level) {
    case Level::kPrivileged:
      return "privileged";
    case Level::kBaseline:
      return "baseline";
    case Level::kRestricted:
      return "restricted";
  }
  return "";
}

std::string LevelVersion::String() const {
  return std::string(LevelName(level)) + ":" +
         (minor == 0 ? std::string("latest") : "v1." + std::to_string(minor));
}

std::expected<Level, std::string> ParseLevel(std::string_view text) {
  if (text == "privileged") return Level::kPrivileged;
  if (text == "baseline") return Level::kBaseline;
  if (text == "restricted") return Level::kRestricted;
  return std::unexpected("must be one of privileged, baseline, restricted");
}

std::expected<int, std::string> ParseVersion(std::string_view text) {
  if (text == "latest") return 0;
  const std::string_view prefix = "v1.";
  if (!text.starts_with(prefix) || text.size() == prefix.size()) {
    return std::unexpected("must be \"latest\" or \"v1.x\"");
  }
  int minor = 0;
  for (char c : text.substr(prefix.size())) {
    if (!std::isdigit(static_cast<unsigned char>(c)) || minor > 100000) {
      return std::unexpected("must be \"latest\" or \"v1.x\"");
    }
    minor = minor * 10 + (c - '0');
  }
  if (text.size() > prefix.size() + 1 && text[prefix.size()] == '0') {
    return std::unexpected("must be \"latest\" or \"v1.x\"");
  }
  return minor > kLatestMinor ? 0 : minor;
}

}  // namespace plugin::admission::pod_security
