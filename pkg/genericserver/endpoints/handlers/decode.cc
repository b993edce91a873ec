#include "pkg/genericserver/endpoints/handlers/decode.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/protobuf/messages.h"
#include "pkg/genericserver/apimachinery/yaml/yaml_json.h"
#include "pkg/genericserver/audit/context.h"
#include "pkg/genericserver/endpoints/handlers/field_validation.h"
#include "pkg/genericserver/endpoints/handlers/options.h"
#include "pkg/genericserver/endpoints/handlers/write_object.h"
#include "pkg/genericserver/endpoints/negotiation.h"

namespace endpoints::handlers {

using nlohmann::json;

std::string BodyMediaType(const RequestContext& ctx) {
  auto type = ctx.request.headers.Get("Content-Type");
  if (!type) return "";
  auto parsed = ParseMediaType(*type);
  return parsed ? parsed->Essence() : std::string(*type);
}

namespace {

// Go's encoding/json (and so upstream's decoding) refuses nesting deeper than this.
constexpr int kMaxJSONDepth = 10000;

// The bracket that first goes deeper than kMaxJSONDepth, outside strings; 0 when none does.
char TooDeep(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxJSONDepth) return c;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return 0;
}

const std::vector<std::string> kBodyMediaTypes = {"application/json", "application/yaml",
                                                  kProtobufType};

// A protobuf body: any built-in kind (a kind without a message is a 400, as an unregistered
// kind is upstream); a resource without protobuf (custom resources) refuses it with 415.
registry::Result<json> DecodeProtobuf(std::string_view bytes, const registry::ResourceSpec* spec) {
  namespace pb = apimachinery::protobuf;
  if (spec != nullptr && !ServesProtobuf(*spec)) {
    return std::unexpected(apimachinery::NewUnsupportedMediaType(
        kProtobufType, {"application/json", "application/yaml"}));
  }
  auto envelope = pb::DecodeEnvelope(bytes);
  if (!envelope) {
    return std::unexpected(
        apimachinery::NewBadRequest("unable to decode protobuf body: " + envelope.error()));
  }
  if (!pb::KnowsKind(envelope->type.api_version, envelope->type.kind)) {
    return std::unexpected(apimachinery::NewBadRequest(
        "no kind \"" + envelope->type.kind + "\" is registered for version \"" +
        envelope->type.api_version + "\" in scheme \"pkg/api/legacyscheme/scheme.go:30\""));
  }
  auto object = pb::ToJSON(*envelope);
  if (!object) {
    return std::unexpected(
        apimachinery::NewBadRequest("unable to decode protobuf body: " + object.error()));
  }
  return std::move(*object);
}

}  // namespace

registry::Result<json> ParseJSON(std::string_view text) {
  if (const char bracket = TooDeep(text)) {
    return std::unexpected(apimachinery::NewBadRequest(
        std::string("couldn't get version/kind; json parse error: invalid character '") + bracket +
        "' exceeded max depth"));
  }
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    // nlohmann prefixes "[json.exception.parse_error.101] parse error at line 1, ...".
    if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    return std::unexpected(
        apimachinery::NewBadRequest("couldn't get version/kind; json parse error: " + what));
  }
}

// An apply body: YAML (JSON is YAML too).
registry::Result<json> ParseApplyBody(std::string_view body) {
  auto parsed = apimachinery::yaml::YAMLToJSON(body);
  if (!parsed) {
    return std::unexpected(apimachinery::NewBadRequest("error decoding YAML: " + parsed.error()));
  }
  if (!parsed->is_object()) {
    return std::unexpected(apimachinery::NewBadRequest(
        "error decoding YAML: the applied configuration is not an object"));
  }
  return std::move(*parsed);
}

std::vector<std::string> AcceptedPatchTypes(bool strategic) {
  std::vector<std::string> accepted = {kJSONPatch, kMergePatch};
  if (strategic) accepted.push_back(kStrategicPatch);
  accepted.push_back(kApplyPatch);
  return accepted;
}

registry::Result<json> DecodeObject(const RequestContext& ctx, const registry::ResourceSpec* spec) {
  const std::string type = BodyMediaType(ctx);
  registry::Result<json> body;
  if (type.empty() || type == "application/json") {
    body = ParseJSON(ctx.request.body);
  } else if (type == "application/yaml" || type == "application/x-yaml") {
    auto converted = apimachinery::yaml::YAMLToJSON(ctx.request.body);
    if (!converted) {
      return std::unexpected(apimachinery::NewBadRequest(converted.error()));
    }
    body = std::move(*converted);
  } else if (type == kProtobufType) {
    body = DecodeProtobuf(ctx.request.body, spec);
  } else {
    return std::unexpected(apimachinery::NewUnsupportedMediaType(type, kBodyMediaTypes));
  }
  if (!body) return body;
  if (!body->is_object()) {
    return std::unexpected(apimachinery::NewBadRequest("Object 'Kind' is missing in '" +
                                                       ctx.request.body.substr(0, 256) + "'"));
  }
  return body;
}

registry::Result<WriteRequest> ReadWriteRequest(RequestContext& ctx, ResponseWriter& out,
                                                const registry::ResourceSpec& spec) {
  auto options = ParseWriteOptions(ctx);
  if (!options) return std::unexpected(options.error());
  auto body = DecodeObject(ctx, &spec);
  if (body) body = CheckFields(ctx, out, spec, std::move(*body));
  if (!body) return std::unexpected(body.error());
  if (ctx.audit) ctx.audit->LogRequestObject(*body);
  return WriteRequest{*options, std::move(*body)};
}

}  // namespace endpoints::handlers
