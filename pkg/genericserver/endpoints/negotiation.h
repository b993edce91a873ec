#pragma once
// Content negotiation: what a response should be (from Accept) and what a request body
// is (from Content-Type), as upstream negotiates them.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace endpoints {

struct MediaType {
  std::string type;                           // "application"
  std::string subtype;                        // "json"
  std::map<std::string, std::string> params;  // lower-case names: "as", "v", "g", "stream"
  double q = 1.0;

  std::string Essence() const { return type + "/" + subtype; }
  std::string Param(const std::string& name) const;
};

// Accept in preference order: q first (stable), then the order given. Malformed entries
// are skipped.
std::vector<MediaType> ParseAccept(std::string_view accept);
std::optional<MediaType> ParseMediaType(std::string_view text);

enum class Output {
  kJSON,  // the object itself: JSON, or protobuf (OutputTarget::protobuf)
  kYAML,
  kTable,                  // meta.k8s.io Table (v1 or v1beta1)
  kPartialObjectMetadata,  // ... or PartialObjectMetadataList for lists
};

struct OutputTarget {
  Output kind = Output::kJSON;
  std::string meta_version = "v1";  // for Table and PartialObjectMetadata: v1 or v1beta1
  bool list = false;                // as=PartialObjectMetadataList rather than ...Metadata
  bool protobuf = false;            // application/vnd.kubernetes.protobuf (kJSON, metadata)
};

// The response form for an object or list request, or std::nullopt when nothing in
// Accept can be produced (406). `streaming`: a watch (no YAML). `protobuf`: the resource's
// kind has a protobuf message (built-in kinds; not custom resources). `tables`: the
// endpoint has a Table form (upstream: its storage converts to tables; the reviews and other
// requests to act have none).
std::optional<OutputTarget> NegotiateOutput(std::string_view accept, bool streaming, bool protobuf,
                                            bool tables = true);
// The media types a 406 lists: the stream forms for a watch, the others otherwise.
const std::vector<std::string>& SupportedOutputTypes(bool protobuf, bool streaming = false);

}  // namespace endpoints
