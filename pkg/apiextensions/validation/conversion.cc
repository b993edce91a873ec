// spec.conversion: the strategy, and for webhooks their client config (a URL or a service,
// the CA bundle) and the ConversionReview versions they accept. Errors name the internal
// fields (spec.conversion.webhookClientConfig, spec.conversion.conversionReviewVersions).

#include <openssl/x509.h>

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/internal.h"
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

// ---- Go's net/url.Parse, as far as webhook URL validation looks at it ------------------

struct GoURL {
  std::string scheme;
  std::string host;
  bool has_user = false;
  std::string user;  // Userinfo.String()
  std::string fragment;
  std::string raw_query;
};

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int Unhex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

enum class Mode { kHost, kPath, kUserPassword, kFragment };

// url.shouldEscape for the host: which ASCII bytes may not appear unescaped.
bool HostNeedsEscape(char c) {
  if (IsAlnum(c)) return false;
  switch (c) {
    case '-':
    case '.':
    case '_':
    case '~':
    case '!':
    case '$':
    case '&':
    case '\'':
    case '(':
    case ')':
    case '*':
    case '+':
    case ',':
    case ';':
    case '=':
    case ':':
    case '[':
    case ']':
    case '<':
    case '>':
    case '"':
      return false;
    default:
      return true;
  }
}

// url.unescape: the decoded text, or the error.
bool Unescape(std::string_view s, Mode mode, std::string* out, std::string* err) {
  out->clear();
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size() || !IsHex(s[i + 1]) || !IsHex(s[i + 2])) {
        *err = "invalid URL escape " + v::GoQuote(s.substr(i, 3));
        return false;
      }
      if (mode == Mode::kHost && Unhex(s[i + 1]) < 8 && s.substr(i, 3) != "%25") {
        *err = "invalid URL escape " + v::GoQuote(s.substr(i, 3));
        return false;
      }
      out->push_back(static_cast<char>(Unhex(s[i + 1]) * 16 + Unhex(s[i + 2])));
      i += 2;
      continue;
    }
    if (mode == Mode::kHost && static_cast<unsigned char>(c) < 0x80 && HostNeedsEscape(c)) {
      *err = "invalid character " + v::GoQuote(std::string_view(&c, 1)) + " in host name";
      return false;
    }
    out->push_back(c);
  }
  return true;
}

bool ValidOptionalPort(std::string_view port) {
  if (port.empty()) return true;
  if (port[0] != ':') return false;
  for (char c : port.substr(1)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool ParseHost(std::string_view host, std::string* out, std::string* err) {
  if (host.starts_with("[")) {
    const size_t close = host.rfind(']');
    if (close == std::string_view::npos) {
      *err = "missing ']' in host";
      return false;
    }
    std::string_view colon_port = host.substr(close + 1);
    if (!ValidOptionalPort(colon_port)) {
      *err = "invalid port " + v::GoQuote(colon_port) + " after host";
      return false;
    }
    *out = std::string(host);  // IPv6 literals are kept as written
    return true;
  }
  if (const size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    std::string_view colon_port = host.substr(colon);
    if (!ValidOptionalPort(colon_port)) {
      *err = "invalid port " + v::GoQuote(colon_port) + " after host";
      return false;
    }
  }
  return Unescape(host, Mode::kHost, out, err);
}

bool ValidUserinfo(std::string_view s) {
  for (char c : s) {
    if (IsAlnum(c)) continue;
    if (std::string_view("-._:~!$&'()*+,;=%@").find(c) == std::string_view::npos) return false;
  }
  return true;
}

// The parse error, or nothing.
std::optional<std::string> ParseURL(std::string_view raw, GoURL* url) {
  std::string_view u = raw, frag;
  bool has_frag = false;
  if (const size_t hash = raw.find('#'); hash != std::string_view::npos) {
    u = raw.substr(0, hash);
    frag = raw.substr(hash + 1);
    has_frag = true;
  }
  auto fail = [](std::string_view which, const std::string& err) {
    return "parse " + v::GoQuote(which) + ": " + err;
  };
  for (char c : u) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return fail(u, "net/url: invalid control character in URL");
    }
  }
  std::string_view rest = u;
  if (u != "*") {
    // getScheme
    for (size_t i = 0; i < u.size(); ++i) {
      const char c = u[i];
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
      if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
        if (i == 0) break;
        continue;
      }
      if (c == ':') {
        if (i == 0) return fail(u, "missing protocol scheme");
        url->scheme = std::string(u.substr(0, i));
        rest = u.substr(i + 1);
      }
      break;
    }
    for (char& c : url->scheme) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    if (rest.ends_with("?") && std::count(rest.begin(), rest.end(), '?') == 1) {
      rest.remove_suffix(1);
    } else if (const size_t q = rest.find('?'); q != std::string_view::npos) {
      url->raw_query = std::string(rest.substr(q + 1));
      rest = rest.substr(0, q);
    }
    bool opaque = false;
    if (!rest.starts_with("/")) {
      if (!url->scheme.empty()) {
        opaque = true;  // a rootless path: opaque, no host
      } else if (rest.substr(0, rest.find('/')).find(':') != std::string_view::npos) {
        return fail(u, "first path segment in URL cannot contain colon");
      }
    }
    if (!opaque && (!url->scheme.empty() || !rest.starts_with("///")) && rest.starts_with("//")) {
      std::string_view authority = rest.substr(2);
      rest = {};
      if (const size_t slash = authority.find('/'); slash != std::string_view::npos) {
        rest = authority.substr(slash);
        authority = authority.substr(0, slash);
      }
      const size_t at = authority.rfind('@');
      std::string err;
      if (!ParseHost(at == std::string_view::npos ? authority : authority.substr(at + 1),
                     &url->host, &err)) {
        return fail(u, err);
      }
      if (at != std::string_view::npos) {
        std::string_view userinfo = authority.substr(0, at);
        if (!ValidUserinfo(userinfo)) return fail(u, "net/url: invalid userinfo");
        std::string decoded;
        if (!Unescape(userinfo, Mode::kUserPassword, &decoded, &err)) return fail(u, err);
        url->has_user = true;
        url->user = std::string(userinfo);
      }
    }
    if (!opaque) {
      std::string path, err;
      if (!Unescape(rest, Mode::kPath, &path, &err)) return fail(u, err);
    }
  }
  if (has_frag) {
    std::string err;
    if (!Unescape(frag, Mode::kFragment, &url->fragment, &err)) return fail(raw, err);
  }
  return std::nullopt;
}

// webhook.ValidateWebhookURL(path, url, forceHttps=true).
void ValidateWebhookURL(const std::string& path, const std::string& raw, FieldErrors& errors) {
  static constexpr std::string_view kForm = "; desired format: https://host[/path]";
  GoURL url;
  if (auto err = ParseURL(raw, &url)) {
    errors.push_back(
        v::FieldRequired(path, "url must be a valid URL: " + *err + std::string(kForm)));
    return;
  }
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
