#include "pkg/genericserver/authn/service_account_token.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/authn/jws.h"
#include "pkg/genericserver/authn/token_file.h"
#include "pkg/util/base64.h"
#include "pkg/util/log.h"
#include "pkg/util/strings.h"

namespace authn {
namespace {

using nlohmann::json;

// Names and extra keys of service-account users (k8s.io/apiserver's serviceaccount package).
constexpr char kUsernamePrefix[] = "system:serviceaccount:";
constexpr char kAllServiceAccountsGroup[] = "system:serviceaccounts";
constexpr char kNamespaceGroupPrefix[] = "system:serviceaccounts:";
constexpr char kCredentialIDKey[] = "authentication.kubernetes.io/credential-id";
constexpr char kPodNameKey[] = "authentication.kubernetes.io/pod-name";
constexpr char kPodUIDKey[] = "authentication.kubernetes.io/pod-uid";
constexpr char kNodeNameKey[] = "authentication.kubernetes.io/node-name";
constexpr char kNodeUIDKey[] = "authentication.kubernetes.io/node-uid";

// Legacy tokens (the Secret-based ones): their fixed issuer and flat private claims.
constexpr char kLegacyNamespaceClaim[] = "kubernetes.io/serviceaccount/namespace";
constexpr char kLegacyNameClaim[] = "kubernetes.io/serviceaccount/service-account.name";
constexpr char kLegacyUIDClaim[] = "kubernetes.io/serviceaccount/service-account.uid";
constexpr char kLegacySecretClaim[] = "kubernetes.io/serviceaccount/secret.name";

// The clock skew tolerated on exp, nbf and iat (go-jose's jwt.DefaultLeeway, which
// upstream's validator uses).
constexpr int64_t kLeewaySeconds = 60;
// NumericDates beyond this many seconds are refused rather than overflowing.
constexpr double kMaxNumericDate = 4611686018427387904.0;  // 2^62

// Upstream verifies with go-jose, which reports every failed verification (bad signature,
// an algorithm the key cannot do, a malformed signature) as this one error.
constexpr char kCryptoFailure[] = "go-jose/go-jose: error in cryptographic primitive";

std::string Serialize(const json& j) {
  // Invalid UTF-8 becomes U+FFFD, as Go's encoder writes it, instead of throwing.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A compact JWS with the parts the authenticator needs, not yet verified.
struct ParsedToken {
  std::string_view signing_input;  // "<header>.<payload>" as sent
  std::string alg, kid;
  bool critical = false;  // a "crit" header: go-jose supports no critical extension
  json claims;            // the payload, an object
  std::string signature;
};

// Reads a token the way upstream's authenticator first looks at it: std::nullopt unless it
// is three base64url parts whose payload is a JSON object with an "iss" string in
// `issuers` and whose header is a JSON object.
std::optional<ParsedToken> ParseToken(std::string_view token,
                                      const std::set<std::string>& issuers) {
  if (util::TrimSpace(token).starts_with('{')) return std::nullopt;  // JSON serialization
  std::optional<jws::Parts> parts = jws::Split(token);
  if (!parts) return std::nullopt;
  ParsedToken parsed;
  parsed.signing_input = parts->signing_input;
  parsed.claims = json::parse(parts->payload, nullptr, false);
  if (!parsed.claims.is_object()) return std::nullopt;
  std::string iss;
  if (auto it = parsed.claims.find("iss"); it != parsed.claims.end() && !it->is_null()) {
    if (!it->is_string()) return std::nullopt;
    iss = it->get<std::string>();
  }
  if (!issuers.contains(iss)) return std::nullopt;

  json h = json::parse(parts->header, nullptr, false);
  if (!h.is_object()) return std::nullopt;
  if (auto it = h.find("alg"); it != h.end() && it->is_string())
    parsed.alg = it->get<std::string>();
  if (auto it = h.find("kid"); it != h.end() && !it->is_null()) {
    if (!it->is_string()) return std::nullopt;
    parsed.kid = it->get<std::string>();
  }
  if (auto it = h.find("crit"); it != h.end() && !it->is_null()) {
    if (!it->is_array()) return std::nullopt;
    parsed.critical = !it->empty();
  }
  parsed.signature = std::move(parts->signature);
  return parsed;
}

// ---- Claims ----

struct ObjectRef {
  std::string name, uid;
};

// The verified payload, as upstream's jwt.Claims and privateClaims hold it.
struct DecodedClaims {
  std::string iss, sub, jti;
  std::vector<std::string> aud;
  std::optional<int64_t> exp, nbf, iat;
  std::string ns;
  ObjectRef service_account;
  std::optional<ObjectRef> pod, secret, node;
};

// Field readers: an absent or null field leaves the target as it is (Go's encoding/json
// does the same); a field of the wrong type is an error.
std::string TypeError(std::string_view field, std::string_view want) {
  return "service account token claim " + util::Quote(field) + " is not " + std::string(want);
}

std::optional<std::string> ReadString(const json& obj, const char* key, std::string_view field,
                                      std::string& out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) return TypeError(field, "a string");
  out = it->get<std::string>();
  return std::nullopt;
}

std::optional<std::string> ReadDate(const json& obj, const char* key, std::optional<int64_t>& out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) return TypeError(key, "a NumericDate");
  double value = it->get<double>();
  if (!(value < kMaxNumericDate && value > -kMaxNumericDate)) {
    return TypeError(key, "a NumericDate in range");
  }
  // Fractions are dropped (toward zero), as go-jose converts the float it parses.
  out = it->is_number_float() ? static_cast<int64_t>(value) : it->get<int64_t>();
  return std::nullopt;
}

std::optional<std::string> ReadRef(const json& obj, const char* key, std::string_view prefix,
                                   std::optional<ObjectRef>& out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  std::string field = std::string(prefix) + key;
  if (!it->is_object()) return TypeError(field, "an object");
  ObjectRef ref;
  if (auto err = ReadString(*it, "name", field + ".name", ref.name)) return err;
  if (auto err = ReadString(*it, "uid", field + ".uid", ref.uid)) return err;
  out = std::move(ref);
  return std::nullopt;
}

// A legacy token's private claims (what the serviceaccount-token controller writes into
// Secrets): flat keys instead of the "kubernetes.io" object, and no times or audiences.
std::expected<void, std::string> DecodeLegacyClaims(const json& claims, DecodedClaims& c) {
  ObjectRef secret;
  if (auto err = ReadString(claims, kLegacyNamespaceClaim, kLegacyNamespaceClaim, c.ns))
    return std::unexpected(*err);
  if (auto err = ReadString(claims, kLegacyNameClaim, kLegacyNameClaim, c.service_account.name))
    return std::unexpected(*err);
  if (auto err = ReadString(claims, kLegacyUIDClaim, kLegacyUIDClaim, c.service_account.uid))
    return std::unexpected(*err);
  if (auto err = ReadString(claims, kLegacySecretClaim, kLegacySecretClaim, secret.name))
    return std::unexpected(*err);
  // Upstream's legacy validator refuses a token that leaves any of them out.
  if (c.ns.empty()) return std::unexpected("namespace claim is missing");
  if (c.service_account.name.empty())
    return std::unexpected("service account name claim is missing");
  if (c.service_account.uid.empty()) return std::unexpected("service account uid claim is missing");
  if (secret.name.empty()) return std::unexpected("secret name claim is missing");
  c.secret = std::move(secret);
  return {};
}

std::expected<DecodedClaims, std::string> DecodeClaims(const json& claims) {
  DecodedClaims c;
  if (auto err = ReadString(claims, "iss", "iss", c.iss)) return std::unexpected(*err);
  if (auto err = ReadString(claims, "sub", "sub", c.sub)) return std::unexpected(*err);
  if (auto err = ReadString(claims, "jti", "jti", c.jti)) return std::unexpected(*err);
  // "aud" is a string or an array of strings (RFC 7519 section 4.1.3).
  if (auto it = claims.find("aud"); it != claims.end() && !it->is_null()) {
    if (it->is_string()) {
      c.aud = {it->get<std::string>()};
    } else if (it->is_array()) {
      for (const json& a : *it) {
        if (!a.is_string())
          return std::unexpected(TypeError("aud", "a string or array of strings"));
        c.aud.push_back(a.get<std::string>());
      }
    } else {
      return std::unexpected(TypeError("aud", "a string or array of strings"));
    }
  }
  if (auto err = ReadDate(claims, "exp", c.exp)) return std::unexpected(*err);
  if (auto err = ReadDate(claims, "nbf", c.nbf)) return std::unexpected(*err);
  if (auto err = ReadDate(claims, "iat", c.iat)) return std::unexpected(*err);
  if (c.iss == kLegacyIssuer) {
    if (auto legacy = DecodeLegacyClaims(claims, c); !legacy)
      return std::unexpected(legacy.error());
    return c;
  }

  auto k8s = claims.find("kubernetes.io");
  if (k8s == claims.end() || k8s->is_null()) return c;
  if (!k8s->is_object()) return std::unexpected(TypeError("kubernetes.io", "an object"));
  if (auto err = ReadString(*k8s, "namespace", "kubernetes.io.namespace", c.ns)) {
    return std::unexpected(*err);
  }
  std::optional<ObjectRef> sa;
  if (auto err = ReadRef(*k8s, "serviceaccount", "kubernetes.io.", sa))
    return std::unexpected(*err);
  if (sa) c.service_account = std::move(*sa);
  if (auto err = ReadRef(*k8s, "pod", "kubernetes.io.", c.pod)) return std::unexpected(*err);
  if (auto err = ReadRef(*k8s, "secret", "kubernetes.io.", c.secret)) return std::unexpected(*err);
  if (auto err = ReadRef(*k8s, "node", "kubernetes.io.", c.node)) return std::unexpected(*err);
  return c;
}

// Compares a claim of whole seconds with now + offset_seconds at the clock's precision:
// negative when the claim is earlier, zero when equal, positive when later.
int CompareWithNow(int64_t claim, int64_t offset_seconds,
                   std::chrono::system_clock::time_point now) {
  auto since_epoch = now.time_since_epoch();
  auto whole = std::chrono::floor<std::chrono::seconds>(since_epoch);
  bool fraction = whole != since_epoch;
  int64_t target = whole.count() + offset_seconds;
  if (claim != target) return claim < target ? -1 : 1;
  return fraction ? -1 : 0;
}

// The time checks of go-jose's Claims.Validate with the default leeway, in its order, and
// upstream's messages for them.
std::optional<std::string> CheckTimes(const DecodedClaims& c,
                                      std::chrono::system_clock::time_point now) {
  if (c.nbf && CompareWithNow(*c.nbf, kLeewaySeconds, now) > 0) {
    return "service account token is not valid yet";
  }
  if (c.exp && CompareWithNow(*c.exp, -kLeewaySeconds, now) < 0) {
    return "service account token has expired";
  }
  if (c.iat && CompareWithNow(*c.iat, kLeewaySeconds, now) > 0) {
    return "service account token is issued in the future";
  }
  return std::nullopt;
}

int64_t UnixSeconds(std::chrono::system_clock::time_point t) {
  return std::chrono::floor<std::chrono::seconds>(t.time_since_epoch()).count();
}

json RefJSON(const std::string& name, const std::string& uid) {
  json ref = json::object();
  if (!name.empty()) ref["name"] = name;
  if (!uid.empty()) ref["uid"] = uid;
  return ref;
}

// The payload upstream's token generator writes: the registered claims and the
// "kubernetes.io" private claims, fields left out when empty (Go's omitempty), keys in
// sorted order.
std::expected<json, std::string> ClaimsJSON(const ServiceAccountClaims& c) {
  if (c.ns.empty() || c.name.empty()) {
    return std::unexpected("a service account token needs the namespace and name of the account");
  }
  json k8s = json::object();
  k8s["namespace"] = c.ns;
  k8s["serviceaccount"] = RefJSON(c.name, c.uid);
  if (c.bound_kind == "Pod") {
    k8s["pod"] = RefJSON(c.bound_name, c.bound_uid);
    if (!c.pod_node_name.empty()) k8s["node"] = RefJSON(c.pod_node_name, c.pod_node_uid);
  } else if (c.bound_kind == "Secret") {
    k8s["secret"] = RefJSON(c.bound_name, c.bound_uid);
  } else if (c.bound_kind == "Node") {
    k8s["node"] = RefJSON(c.bound_name, c.bound_uid);
  } else if (!c.bound_kind.empty()) {
    return std::unexpected("cannot bind a service account token to a " + c.bound_kind +
                           ": only Pod, Secret and Node are supported");
  }
  json payload = json::object();
  if (!c.audiences.empty()) payload["aud"] = c.audiences;  // always an array, as go-jose v2
  payload["exp"] = UnixSeconds(c.expires_at);
  payload["iat"] = UnixSeconds(c.issued_at);
  if (!c.issuer.empty()) payload["iss"] = c.issuer;
  if (!c.jti.empty()) payload["jti"] = c.jti;
  payload["kubernetes.io"] = std::move(k8s);
  payload["nbf"] = UnixSeconds(c.issued_at);
  payload["sub"] = kUsernamePrefix + c.ns + ":" + c.name;
  return payload;
}

// The user upstream's ServiceAccountInfo.UserInfo() makes of validated claims (all the
// 1.32 default-on features: JTI credential IDs, node binding, node info in pod tokens).
UserInfo UserOf(const DecodedClaims& c) {
  UserInfo user;
  user.name = kUsernamePrefix + c.ns + ":" + c.service_account.name;
  user.uid = c.service_account.uid;
  user.groups = {kAllServiceAccountsGroup, kNamespaceGroupPrefix + c.ns};
  if (c.pod && !c.pod->name.empty() && !c.pod->uid.empty()) {
    user.extra[kPodNameKey] = {c.pod->name};
    user.extra[kPodUIDKey] = {c.pod->uid};
  }
  if (!c.jti.empty()) user.extra[kCredentialIDKey] = {"JTI=" + c.jti};
  if (c.node && !c.node->name.empty()) {
    user.extra[kNodeNameKey] = {c.node->name};
    if (!c.node->uid.empty()) user.extra[kNodeUIDKey] = {c.node->uid};
  }
  return user;
}

// ---- The lookup (--service-account-lookup) ----

// Upstream's validators: the account exists with the token's uid and is not being deleted;
// a bound pod or Secret exists with its uid; a legacy token's Secret exists, holds this
// very token and belongs to the account. The reason, for the log (the client sees a 401).
std::optional<std::string> LookUp(const ServiceAccountObjects& objects, const DecodedClaims& c,
                                  std::string_view token, bool legacy) {
  using Kind = ServiceAccountObjects::Kind;
  const std::string account = c.ns + "/" + c.service_account.name;
  if (legacy) {
    auto secret = objects.Find(Kind::kSecret, c.ns, c.secret->name);
    if (!secret || secret->deleting || secret->token != token ||
        secret->service_account != c.service_account.name) {
      return "the token's secret " + c.ns + "/" + c.secret->name + " no longer holds it";
    }
  }
  auto sa = objects.Find(Kind::kServiceAccount, c.ns, c.service_account.name);
  if (!sa) return "service account " + account + " has been deleted";
  if (!c.service_account.uid.empty() && sa->uid != c.service_account.uid) {
    return "service account UID (" + sa->uid + ") does not match claim (" + c.service_account.uid +
           ")";
  }
  if (sa->deleting) return "service account " + account + " has been deleted";
  if (legacy) return std::nullopt;
  // A pod's token names its node too: only a token bound to the node itself is checked
  // against it.
  const std::optional<ObjectRef> no_ref;
  const std::optional<ObjectRef>& node = c.pod ? no_ref : c.node;
  for (auto [ref, kind, what] :
       {std::tuple{&c.pod, Kind::kPod, "pod"}, std::tuple{&c.secret, Kind::kSecret, "secret"},
        std::tuple{&node, Kind::kNode, "node"}}) {
    if (!*ref) continue;
    const std::string ns = kind == Kind::kNode ? "" : c.ns;
    auto bound = objects.Find(kind, ns, (*ref)->name);
    if (!bound || bound->deleting) {
      return std::string(what) + " " + (ns.empty() ? "" : ns + "/") + (*ref)->name +
             " has been deleted";
    }
    if (!(*ref)->uid.empty() && bound->uid != (*ref)->uid) {
      return std::string(what) + " UID (" + bound->uid + ") does not match claim (" + (*ref)->uid +
             ")";
    }
  }
  return std::nullopt;
}

// ---- The authenticator ----

struct VerificationKey {
  std::string kid;
  jws::Pkey key;
};

class ServiceAccountTokenAuthenticator final : public Authenticator {
 public:
  ServiceAccountTokenAuthenticator(std::vector<VerificationKey> keys,
                                   std::vector<std::string> issuers,
                                   std::vector<std::string> api_audiences,
                                   std::shared_ptr<const ServiceAccountObjects> lookup)
      : keys_(std::move(keys)),
        issuers_(issuers.begin(), issuers.end()),
        audiences_(std::move(api_audiences)),
        lookup_(std::move(lookup)) {
    issuers_.insert(kLegacyIssuer);  // as upstream, always accepted beside the configured ones
  }

  AuthenticateResult Authenticate(const genericserver::Request& request) const override {
    std::string_view token = BearerToken(request);
    if (token.empty()) return std::nullopt;
    try {
      return AuthenticateToken(token, request.audiences.empty() ? audiences_ : request.audiences);
    } catch (const std::exception& e) {
      // Nothing above is expected to throw; a token must never take the server down.
      return std::unexpected(std::string("service account token could not be validated: ") +
                             e.what());
    }
  }

 private:
  AuthenticateResult AuthenticateToken(std::string_view token,
                                       const std::vector<std::string>& requested) const {
    std::optional<ParsedToken> parsed = ParseToken(token, issuers_);
    if (!parsed) return std::nullopt;

    // Only the keys whose ID the token names, or all of them when it names none; the
    // first that verifies the signature wins.
    size_t tried = 0;
    bool verified = false;
    for (const VerificationKey& k : keys_) {
      if (!parsed->kid.empty() && k.kid != parsed->kid) continue;
      ++tried;
      if (!parsed->critical &&
          jws::Verify(k.key.get(), parsed->alg, parsed->signing_input, parsed->signature)) {
        verified = true;
        break;
      }
    }
    if (tried == 0) return std::unexpected("invalid signature, no keys found");
    if (!verified) return std::unexpected(kCryptoFailure);

    std::expected<DecodedClaims, std::string> claims = DecodeClaims(parsed->claims);
    if (!claims) return std::unexpected(claims.error());
    if (!issuers_.contains(claims->iss)) {
      return std::unexpected("token issuer " + util::Quote(claims->iss) + " is invalid");
    }

    // A token without audiences predates bound tokens and is taken to be for this server.
    const std::vector<std::string>& token_audiences =
        claims->aud.empty() ? audiences_ : claims->aud;
    std::vector<std::string> audiences = IntersectAudiences(token_audiences, requested);
    if (audiences.empty() && !audiences_.empty()) {
      return std::unexpected("token audiences " + util::QuoteList(token_audiences) +
                             " is invalid for the target audiences " + util::QuoteList(requested));
    }

    if (auto err = CheckTimes(*claims, std::chrono::system_clock::now())) {
      return std::unexpected(*err);
    }
    // Upstream looks the account up by these and fails when it is missing; without a
    // lookup, a token naming no account is refused here.
    if (claims->ns.empty() || claims->service_account.name.empty()) {
      return std::unexpected(
          "service account token does not name its namespace and service account");
    }
    if (lookup_) {
      if (auto refused = LookUp(*lookup_, *claims, token, claims->iss == kLegacyIssuer)) {
        return std::unexpected(*refused);
      }
    }
    UserInfo user = UserOf(*claims);
    user.audiences = std::move(audiences);
    return user;
  }

  std::vector<VerificationKey> keys_;
  std::set<std::string> issuers_;
  std::vector<std::string> audiences_;
  std::shared_ptr<const ServiceAccountObjects> lookup_;  // null: no lookup
};

// Signs `payload` with the key: the compact serialization with upstream's header.
std::expected<std::string, std::string> SignPayload(const json& payload,
                                                    std::string_view private_key_pem) {
  std::expected<jws::Pkey, std::string> key = jws::ReadPrivateKey(private_key_pem);
  if (!key) return std::unexpected(key.error());
  std::expected<std::string, std::string> alg_name = jws::SigningAlgorithm(key->get());
  if (!alg_name) return std::unexpected(alg_name.error());
  std::expected<std::string, std::string> kid = jws::KeyID(key->get());
  if (!kid) return std::unexpected("failed to derive keyID: " + kid.error());
  json header = {{"alg", *alg_name}, {"kid", *kid}};
  std::string input = util::Base64RawURLEncode(Serialize(header)) + "." +
                      util::Base64RawURLEncode(Serialize(payload));
  std::expected<std::string, std::string> sig = jws::Sign(key->get(), *alg_name, input);
  if (!sig) return std::unexpected(sig.error());
  return input + "." + util::Base64RawURLEncode(*sig);
}

}  // namespace

std::expected<std::string, std::string> SignServiceAccountToken(const ServiceAccountClaims& claims,
                                                                std::string_view private_key_pem) {
  try {
    std::expected<json, std::string> payload = ClaimsJSON(claims);
    if (!payload) return std::unexpected(payload.error());
    return SignPayload(*payload, private_key_pem);
  } catch (const std::exception& e) {
    return std::unexpected(std::string("signing the service account token: ") + e.what());
  }
}

std::expected<std::string, std::string> SignLegacyServiceAccountToken(
    const LegacyServiceAccountClaims& claims, std::string_view private_key_pem) {
  if (claims.ns.empty() || claims.name.empty() || claims.uid.empty() ||
      claims.secret_name.empty()) {
    return std::unexpected(
        "a legacy service account token needs the namespace, name and uid of the account and "
        "the name of its secret");
  }
  try {
    json payload = {{"iss", kLegacyIssuer},
                    {kLegacyNamespaceClaim, claims.ns},
                    {kLegacySecretClaim, claims.secret_name},
                    {kLegacyNameClaim, claims.name},
                    {kLegacyUIDClaim, claims.uid},
                    {"sub", kUsernamePrefix + claims.ns + ":" + claims.name}};
    return SignPayload(payload, private_key_pem);
  } catch (const std::exception& e) {
    return std::unexpected(std::string("signing the service account token: ") + e.what());
  }
}

std::expected<std::string, std::string> PublicKeyOf(std::string_view private_key_pem) {
  std::expected<jws::Pkey, std::string> key = jws::ReadPrivateKey(private_key_pem);
  if (!key) return std::unexpected(key.error());
  return jws::PublicKeyPEM(key->get());
}

AuthenticatorPtr NewServiceAccountTokenAuthenticator(
    std::vector<std::string> public_keys_pem, std::vector<std::string> issuers,
    std::vector<std::string> api_audiences, std::shared_ptr<const ServiceAccountObjects> lookup) {
  std::vector<VerificationKey> keys;
  for (size_t i = 0; i < public_keys_pem.size(); ++i) {
    std::vector<jws::Pkey> found = jws::ReadPublicKeys(public_keys_pem[i]);
    if (found.empty()) {
      KLOG_WARNING << "service account key " << i
                   << ": data does not contain any valid RSA or ECDSA public keys";
    }
    for (jws::Pkey& key : found) {
      std::expected<std::string, std::string> kid = jws::KeyID(key.get());
      if (!kid) {
        KLOG_WARNING << "service account key " << i << ": " << kid.error();
        continue;
      }
      keys.push_back(VerificationKey{.kid = std::move(*kid), .key = std::move(key)});
    }
  }
  return std::make_shared<ServiceAccountTokenAuthenticator>(
      std::move(keys), std::move(issuers), std::move(api_audiences), std::move(lookup));
}

}  // namespace authn
