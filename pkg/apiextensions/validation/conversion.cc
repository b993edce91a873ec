// spec.conversion: the strategy, and for webhooks their client config (a URL or a service,
// the CA bundle) and the ConversionReview versions they accept. Errors name the internal
// fields (spec.conversion.webhookClientConfig, spec.conversion.conversionReviewVersions).

#include <openssl/x509.h>

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/internal.h"
#include "pkg/genericserver/apimachinery/gourl/url.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/apimachinery/validation/names.h"
#include "pkg/util/base64.h"

namespace apiextensions::validation::internal {

namespace v = apimachinery::validation;
using nlohmann::json;

namespace {

constexpr std::string_view kPath = "spec.conversion";
constexpr std::string_view kClientConfigPath = "spec.conversion.webhookClientConfig";
constexpr std::string_view kReviewVersionsPath = "spec.conversion.conversionReviewVersions";

// webhook.ValidateWebhookURL(path, url, forceHttps=true).
void ValidateWebhookURL(const std::string& path, const std::string& raw, FieldErrors& errors) {
  static constexpr std::string_view kForm = "; desired format: https://host[/path]";
  auto parsed = apimachinery::gourl::Parse(raw);
  if (!parsed) {
    errors.push_back(
        v::FieldRequired(path, "url must be a valid URL: " + parsed.error() + std::string(kForm)));
    return;
  }
  const apimachinery::gourl::URL& url = *parsed;
  if (url.scheme != "https") {
    errors.push_back(v::FieldInvalid(
        path, url.scheme, "'https' is the only allowed URL scheme" + std::string(kForm)));
  }
  if (url.host.empty()) {
    errors.push_back(
        v::FieldInvalid(path, url.host, "host must be specified" + std::string(kForm)));
  }
  if (url.has_user) {
    errors.push_back(
        v::FieldInvalid(path, url.user, "user information is not permitted in the URL"));
  }
  if (!url.fragment.empty()) {
    errors.push_back(v::FieldInvalid(path, url.fragment, "fragments are not permitted in the URL"));
  }
  if (!url.raw_query.empty()) {
    errors.push_back(
        v::FieldInvalid(path, url.raw_query, "query parameters are not permitted in the URL"));
  }
}

// webhook.ValidateWebhookService.
void ValidateWebhookService(const std::string& path, const json& service, FieldErrors& errors) {
  if (Str(&service, "name").empty()) errors.push_back(v::FieldRequired(Child(path, "name"), ""));
  if (Str(&service, "namespace").empty()) {
    errors.push_back(v::FieldRequired(Child(path, "namespace"), ""));
  }
  const json* port_value = Get(service, "port");
  const int64_t port =
      port_value != nullptr && port_value->is_number_integer() ? port_value->get<int64_t>() : 0;
  if (port < 1 || port > 65535) {
    errors.push_back(InvalidVerbatim(Child(path, "port"), std::to_string(port),
                                     "port is not valid: must be between 1 and 65535, inclusive"));
  }
  const json* path_value = Get(service, "path");
  if (path_value == nullptr || !path_value->is_string()) return;
  const std::string url_path = path_value->get<std::string>();
  const std::string field = Child(path, "path");
  if (url_path == "/" || url_path.empty()) return;
  if (url_path == "//") {
    errors.push_back(v::FieldInvalid(field, url_path, "segment[0] may not be empty"));
    return;
  }
  if (!url_path.starts_with("/")) {
    errors.push_back(v::FieldInvalid(field, url_path, "must start with a '/'"));
  }
  std::string_view to_check = url_path;
  to_check.remove_prefix(1);
  if (to_check.ends_with("/")) to_check.remove_suffix(1);
  size_t i = 0;
  while (true) {
    const size_t slash = to_check.find('/');
    const std::string_view step = to_check.substr(0, slash);
    if (step.empty()) {
      errors.push_back(
          v::FieldInvalid(field, url_path, "segment[" + std::to_string(i) + "] may not be empty"));
    } else {
      for (const std::string& failure : v::IsDNS1123Subdomain(step)) {
        errors.push_back(
            v::FieldInvalid(field, url_path, "segment[" + std::to_string(i) + "]: " + failure));
      }
    }
    if (slash == std::string_view::npos) break;
    to_check.remove_prefix(slash + 1);
    ++i;
  }
}

// ---- CA bundles: what client-go's TLS config makes of them -----------------------------

struct PemBlock {
  std::string type;
  bool has_headers = false;
  std::optional<std::string> bytes;  // nullopt when the body is no base64
};

// The PEM blocks of data (encoding/pem.Decode, repeatedly); `trailing` tells whether
// something other than blocks and whitespace is left over.
std::vector<PemBlock> PemBlocks(std::string_view data, bool* trailing) {
  std::vector<PemBlock> blocks;
  *trailing = false;
  while (true) {
    size_t begin = std::string_view::npos;
    if (data.starts_with("-----BEGIN ")) {
      begin = 0;
    } else if (size_t at = data.find("\n-----BEGIN "); at != std::string_view::npos) {
      begin = at + 1;
    }
    if (begin == std::string_view::npos) {
      *trailing = data.find_first_not_of(" \t\r\n") != std::string_view::npos;
      return blocks;
    }
    std::string_view rest = data.substr(begin + 11);
    const size_t type_end = rest.find("-----");
    const size_t line_end = rest.find('\n');
    if (type_end == std::string_view::npos ||
        (line_end != std::string_view::npos && line_end < type_end)) {
      data = rest;
      continue;
    }
    PemBlock block;
    block.type = std::string(rest.substr(0, type_end));
    rest = rest.substr(type_end + 5);
    const std::string end_marker = "-----END " + block.type + "-----";
    const size_t end = rest.find(end_marker);
    if (end == std::string_view::npos) {
      data = rest;
      continue;
    }
    std::string_view body = rest.substr(0, end);
    data = rest.substr(end + end_marker.size());
    // Headers: "Key: value" lines before a blank line.
    std::string b64;
    std::string_view lines = body;
    while (!lines.empty()) {
      const size_t nl = lines.find('\n');
      std::string_view line = lines.substr(0, nl);
      lines = nl == std::string_view::npos ? std::string_view() : lines.substr(nl + 1);
      if (line.find(':') != std::string_view::npos) {
        block.has_headers = true;
        continue;
      }
      for (char c : line) {
        if (c != ' ' && c != '\t' && c != '\r') b64.push_back(c);
      }
    }
    block.bytes = util::Base64Decode(b64);
    blocks.push_back(std::move(block));
  }
}

bool ParsesAsCertificate(const std::string& der) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
  X509* cert = d2i_X509(nullptr, &p, static_cast<long>(der.size()));
  if (cert == nullptr) return false;
  const bool whole = p == reinterpret_cast<const unsigned char*>(der.data()) + der.size();
  X509_free(cert);
  return whole;
}

// transport.TLSConfigFor with the bundle as CA data: the error, if it fails.
std::optional<std::string> CABundleError(std::string_view bundle) {
  bool trailing = false;
  const std::vector<PemBlock> blocks = PemBlocks(bundle, &trailing);
  for (const PemBlock& b : blocks) {
    if (b.type == "CERTIFICATE" && !b.has_headers && b.bytes && ParsesAsCertificate(*b.bytes)) {
      return std::nullopt;  // one usable certificate is enough
    }
  }
  std::string why = "no valid certificate authority data seen";
  if (blocks.empty()) {
    why = "unable to parse bytes as PEM block";
  } else {
    bool decided = false;
    for (const PemBlock& b : blocks) {
      if (!b.bytes) {
        why = "unable to parse bytes as PEM block";
        decided = true;
        break;
      }
      if (b.type != "CERTIFICATE" || b.has_headers) continue;
      why = "failed to parse certificate: x509: malformed certificate";
      decided = true;
      break;
    }
    if (!decided && trailing) why = "unable to parse bytes as PEM block";
  }
  return "unable to load root certificates: " + why;
}

std::string DecodedCABundle(const json* client_config) {
  const std::string encoded = Str(client_config, "caBundle");
  if (auto decoded = util::Base64Decode(encoded)) return *decoded;
  return encoded;
}

const json* ClientConfig(const Crd& crd) {
  return Get(Get(crd.conversion, "webhook"), "clientConfig");
}

void ValidateReviewVersions(const json* webhook, bool require_recognized, FieldErrors& errors) {
  const std::string path(kReviewVersionsPath);
  const std::vector<std::string> versions = Strings(webhook, "conversionReviewVersions");
  if (versions.empty()) {
    errors.push_back(v::FieldRequired(path, ""));
    return;
  }
  std::set<std::string> seen;
  bool accepted = false;
  for (size_t i = 0; i < versions.size(); ++i) {
    const std::string& ver = versions[i];
    if (!seen.insert(ver).second) {
      errors.push_back(v::FieldInvalid(Index(path, i), ver, "duplicate version"));
      continue;
    }
    for (std::string& msg : v::IsDNS1035Label(ver)) {
      errors.push_back(v::FieldInvalid(Index(path, i), ver, std::move(msg)));
    }
    if (ver == "v1" || ver == "v1beta1") accepted = true;
  }
  if (require_recognized && !accepted) {
    errors.push_back(InvalidVerbatim(path, v::GoStringSlice(versions),
                                     "must include at least one of v1, v1beta1"));
  }
}

}  // namespace

bool HasInvalidCABundle(const Crd& crd) {
  const json* cc = ClientConfig(crd);
  if (Str(cc, "caBundle").empty()) return false;
  return CABundleError(DecodedCABundle(cc)).has_value();
}

bool HasValidConversionReviewVersionOrEmpty(const Crd& crd) {
  const std::vector<std::string> versions =
      Strings(Get(crd.conversion, "webhook"), "conversionReviewVersions");
  if (versions.empty()) return true;
  for (const std::string& ver : versions) {
    if (ver == "v1" || ver == "v1beta1") return true;
  }
  return false;
}

void ValidateConversion(const Crd& crd, const Options& options, FieldErrors& errors) {
  const json* conversion = crd.conversion;
  if (conversion == nullptr) return;
  const std::string strategy = Str(conversion, "strategy");
  if (strategy != "None" && crd.preserve_unknown_fields) {
    errors.push_back(v::FieldInvalid(Child(kPath, "strategy"), strategy,
                                     "must be None if spec.preserveUnknownFields is true"));
  }
  if (strategy.empty()) {
    errors.push_back(v::FieldRequired(Child(kPath, "strategy"), ""));
  } else if (strategy != "None" && strategy != "Webhook") {
    errors.push_back(v::FieldNotSupported(Child(kPath, "strategy"), strategy, {"None", "Webhook"}));
  }
  const json* webhook = Get(conversion, "webhook");
  const json* client_config = Get(webhook, "clientConfig");
  const std::string cc_path(kClientConfigPath);
  if (strategy == "Webhook") {
    if (client_config == nullptr) {
      errors.push_back(v::FieldRequired(cc_path, "required when strategy is set to Webhook"));
    } else {
      const json* url = Get(client_config, "url");
      const json* service = Get(client_config, "service");
      if ((url == nullptr) == (service == nullptr)) {
        errors.push_back(v::FieldRequired(cc_path, "exactly one of url or service is required"));
      } else if (url != nullptr) {
        ValidateWebhookURL(Child(cc_path, "url"), url->is_string() ? url->get<std::string>() : "",
                           errors);
      } else {
        ValidateWebhookService(Child(cc_path, "service"), *service, errors);
      }
      if (!Str(client_config, "caBundle").empty() && !options.allow_invalid_ca_bundle) {
        const std::string bundle = DecodedCABundle(client_config);
        if (auto err = CABundleError(bundle)) {
          errors.push_back(InvalidVerbatim(Child(cc_path, "caBundle"), GoBytes(bundle), *err));
        }
      }
    }
    ValidateReviewVersions(webhook, options.require_recognized_conversion_review_version, errors);
  } else {
    if (client_config != nullptr) {
      errors.push_back(
          v::FieldForbidden(cc_path, "should not be set when strategy is not set to Webhook"));
    }
    if (NonEmpty(webhook, "conversionReviewVersions")) {
      errors.push_back(v::FieldForbidden(std::string(kReviewVersionsPath),
                                         "should not be set when strategy is not set to Webhook"));
    }
  }
}

}  // namespace apiextensions::validation::internal
