#include "pkg/genericserver/endpoints/negotiation.h"

#include <algorithm>
#include <cstdlib>

#include "pkg/util/strings.h"

namespace endpoints {

std::string MediaType::Param(const std::string& name) const {
  auto it = params.find(name);
  return it == params.end() ? "" : it->second;
}

std::optional<MediaType> ParseMediaType(std::string_view text) {
  std::vector<std::string> parts = util::Split(text, ';');
  std::string_view essence = util::TrimSpace(parts[0]);
  size_t slash = essence.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == essence.size()) {
    return std::nullopt;
  }
  MediaType m;
  m.type = util::ToLower(util::TrimSpace(essence.substr(0, slash)));
  m.subtype = util::ToLower(util::TrimSpace(essence.substr(slash + 1)));
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string_view p = util::TrimSpace(parts[i]);
    if (p.empty()) continue;
    size_t eq = p.find('=');
    std::string name = util::ToLower(util::TrimSpace(p.substr(0, eq)));
    std::string value =
        eq == std::string_view::npos ? "" : std::string(util::TrimSpace(p.substr(eq + 1)));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    if (name == "q") {
      m.q = std::strtod(value.c_str(), nullptr);
    } else {
      m.params[name] = value;
    }
  }
  return m;
}

std::vector<MediaType> ParseAccept(std::string_view accept) {
  std::vector<MediaType> out;
  for (const std::string& entry : util::Split(accept, ',')) {
    if (util::TrimSpace(entry).empty()) continue;
    if (auto m = ParseMediaType(entry)) out.push_back(std::move(*m));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const MediaType& a, const MediaType& b) { return a.q > b.q; });
  return out;
}

const std::vector<std::string>& SupportedOutputTypes(bool protobuf, bool streaming) {
  static const std::vector<std::string> json_only = {"application/json", "application/yaml"};
  static const std::vector<std::string> with_protobuf = {"application/json", "application/yaml",
                                                         "application/vnd.kubernetes.protobuf"};
  static const std::vector<std::string> json_stream = {"application/json;stream=watch"};
  static const std::vector<std::string> protobuf_stream = {
      "application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch"};
  if (streaming) return protobuf ? protobuf_stream : json_stream;
  return protobuf ? with_protobuf : json_only;
}

std::optional<OutputTarget> NegotiateOutput(std::string_view accept, bool streaming, bool protobuf,
                                            bool tables) {
  if (util::TrimSpace(accept).empty()) return OutputTarget{};
  for (const MediaType& m : ParseAccept(accept)) {
    if (m.q <= 0) continue;
    const std::string essence = m.Essence();
    const std::string as = m.Param("as");
    if (essence == "*/*" || essence == "application/*") return OutputTarget{};
    if (essence == "application/json") {
      if (as.empty()) return OutputTarget{};
      const std::string g = m.Param("g"), v = m.Param("v");
      if (g != "meta.k8s.io" || (v != "v1" && v != "v1beta1")) continue;
      if (as == "Table") {
        if (tables) return OutputTarget{Output::kTable, v};
        continue;
      }
      if (as == "PartialObjectMetadata" || as == "PartialObjectMetadataList") {
        return OutputTarget{Output::kPartialObjectMetadata, v, as == "PartialObjectMetadataList"};
      }
      continue;
    }
    if (essence == "application/vnd.kubernetes.protobuf") {
      // Objects and lists of kinds with messages; PartialObjectMetadata of any (a meta.k8s.io
      // message); never a Table, which has no message.
      if (as.empty()) {
        if (protobuf) return OutputTarget{Output::kJSON, "v1", false, true};
        continue;
      }
      if (m.Param("g") == "meta.k8s.io" && m.Param("v") == "v1" &&
          (as == "PartialObjectMetadata" || as == "PartialObjectMetadataList")) {
        return OutputTarget{Output::kPartialObjectMetadata, "v1", as == "PartialObjectMetadataList",
                            true};
      }
      continue;
    }
    if ((essence == "application/yaml" || essence == "application/x-yaml") && !streaming &&
        as.empty()) {
      return OutputTarget{Output::kYAML};
    }
  }
  return std::nullopt;
}

}  // namespace endpoints
