#include "pkg/plugin/authenticator/oidc.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "pkg/client/rest/client.h"
#include "pkg/genericserver/apimachinery/gourl/url.h"
#include "pkg/genericserver/authn/jws.h"
#include "pkg/genericserver/authn/token_file.h"
#include "pkg/genericserver/storage/wakeup.h"
#include "pkg/util/log.h"
#include "pkg/util/strings.h"
#include "pkg/util/timestamp.h"

namespace authn {
namespace {

namespace net = boost::asio;
using nlohmann::json;
using SystemClock = std::chrono::system_clock;

constexpr char kNotInitialized[] = "oidc: authenticator not initialized";
constexpr char kCredentialIDKey[] = "authentication.kubernetes.io/credential-id";
// Discovery is tried at once, then this often until it succeeds, as upstream does.
constexpr std::chrono::seconds kInitializeRetry{10};
// The skew go-oidc tolerates on nbf (none on exp).
constexpr int64_t kNotBeforeLeewaySeconds = 60;

// The keys of the issuer's JWKS, by kid ("" for a key without one).
struct KeySet {
  std::vector<std::pair<std::string, jws::Pkey>> keys;
};

// A token of this issuer, not yet verified.
struct Unverified {
  jws::Parts parts;
  json header, claims;
};

// upstream's hasCorrectIssuer: anything but a compact JWS whose payload's iss is the URL
// (compared exactly; "accounts.google.com" is Google's https URL) is not this issuer's.
std::optional<Unverified> ParseForIssuer(std::string_view token, const std::string& issuer) {
  if (token.starts_with('{')) return std::nullopt;
  std::optional<jws::Parts> parts = jws::Split(token);
  if (!parts) return std::nullopt;
  json claims = json::parse(parts->payload, nullptr, false);
  if (!claims.is_object()) return std::nullopt;
  auto iss = claims.find("iss");
  if (iss == claims.end() || !iss->is_string()) return std::nullopt;
  std::string got = iss->get<std::string>();
  if (got == "accounts.google.com") got = "https://accounts.google.com";
  if (got != issuer) return std::nullopt;
  json header = json::parse(parts->header, nullptr, false);
  return Unverified{std::move(*parts), std::move(header), std::move(claims)};
}

// object[name] when it is a string, else "" (whatever object is).
std::string StringMember(const json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// Go's encoding/json error for a claim of the wrong type.
std::string Mistyped(const json& value, std::string_view go_type) {
  const char* kind = value.is_number()    ? "number"
                     : value.is_boolean() ? "bool"
                     : value.is_array()   ? "array"
                     : value.is_object()  ? "object"
                                          : "string";
  return std::string("json: cannot unmarshal ") + kind + " into Go value of type " +
         std::string(go_type);
}

// The time as Go prints a time.Time in UTC: "2026-12-04 18:00:00 +0000 UTC".
std::string GoTime(int64_t unix_seconds) {
  if (unix_seconds < -62135596800 || unix_seconds > 253402300799) {  // beyond years 1..9999
    return std::to_string(unix_seconds);
  }
  std::string t = util::FormatMicroTime(util::MicroTime(std::chrono::seconds(unix_seconds)));
  // "2026-12-04T18:00:00.000000Z" -> "2026-12-04 18:00:00 +0000 UTC"
  return t.substr(0, 10) + " " + t.substr(11, 8) + " +0000 UTC";
}

// A NumericDate claim (a JSON number; Go also reads a quoted number).
std::optional<int64_t> NumericDate(const json& claims, const char* name, std::string& error) {
  auto it = claims.find(name);
  if (it == claims.end() || it->is_null()) return std::nullopt;
  if (it->is_number() && std::abs(it->get<double>()) < 9.2e18) {
    return it->is_number_float() ? static_cast<int64_t>(it->get<double>()) : it->get<int64_t>();
  }
  error = "oidc: failed to unmarshal claims: " + Mistyped(*it, "int64");
  return std::nullopt;
}

// GET of a JSON document over HTTPS, trusting `ca_pem` (or the system's roots).
Awaitable<std::expected<json, std::string>> GetJSON(std::string url, std::string ca_pem,
                                                    std::string what, net::any_io_executor io) {
  auto parsed = apimachinery::gourl::Parse(url);
  if (!parsed) co_return std::unexpected(parsed.error());
  client::RestConfig config;
  config.host = parsed->scheme + "://" + parsed->host;
  config.ca_pem = std::move(ca_pem);
  config.qps = 0;
  auto rest = client::RestClient::New(config, "kube-apiserver", std::move(io));
  if (!rest) co_return std::unexpected(rest.error());
  std::string target = parsed->raw_path.empty() ? "/" : parsed->raw_path;
  if (!parsed->raw_query.empty()) target += "?" + parsed->raw_query;
  auto answer = co_await (*rest)->Do("GET", target, "", "", "application/json");
  if (!answer) co_return std::unexpected(answer.error().String());
  if (answer->status != 200) {
    co_return std::unexpected(std::to_string(answer->status) + ": " + answer->body);
  }
  json body = json::parse(answer->body, nullptr, false);
  if (!body.is_object()) {
    co_return std::unexpected("oidc: failed to decode " + what + ": not a JSON object");
  }
  co_return body;
}

std::expected<KeySet, std::string> ParseKeySet(const json& jwks) {
  auto keys = jwks.find("keys");
  if (keys == jwks.end() || !keys->is_array()) {
    return std::unexpected("oidc: failed to decode keys: no \"keys\" list");
  }
  KeySet set;
  for (const json& k : *keys) {
    if (!k.is_object()) {
      return std::unexpected("oidc: failed to decode keys: a key is not an object");
    }
    jws::PublicJWK jwk{StringMember(k, "kty"), StringMember(k, "crv"), StringMember(k, "n"),
                       StringMember(k, "e"),   StringMember(k, "x"),   StringMember(k, "y")};
    auto key = jws::PublicKeyOf(jwk);
    if (!key) return std::unexpected("oidc: failed to decode keys: " + key.error());
    set.keys.emplace_back(StringMember(k, "kid"), std::move(*key));
  }
  return set;
}

class OIDCAuthenticator final : public Authenticator,
                                public std::enable_shared_from_this<OIDCAuthenticator> {
 public:
  OIDCAuthenticator(OIDCOptions options, net::any_io_executor io,
                    std::function<SystemClock::time_point()> now)
      : options_(std::move(options)), io_(std::move(io)), now_(std::move(now)) {}

  // Discovery, at once and every kInitializeRetry until it succeeds.
  void StartInitializing() { net::co_spawn(io_, Initialize(weak_from_this()), net::detached); }

  AuthenticateResult Authenticate(const genericserver::Request& request) const override {
    auto token = ParseForIssuer(BearerToken(request), options_.issuer_url);
    if (!token) return std::nullopt;
    const Snapshot now = Current();
    if (!now.initialized) return std::unexpected(kNotInitialized);
    return Verify(*token, now.keys.get());
  }

  Awaitable<AuthenticateResult> AuthenticateAsync(
      const genericserver::Request& request) const override {
    auto token = ParseForIssuer(BearerToken(request), options_.issuer_url);
    if (!token) co_return std::nullopt;
    const Snapshot before = Current();
    if (!before.initialized) co_return std::unexpected(kNotInitialized);
    AuthenticateResult r = Verify(*token, before.keys.get());
    if (r || r.error() != kBadSignature) co_return r;
    // No key verified it: the issuer may have new ones.
    if (auto refreshed = co_await RefreshKeys(before.generation); !refreshed) {
      co_return std::unexpected("oidc: verify token: failed to verify signature: fetching keys " +
                                refreshed.error());
    }
    co_return Verify(*token, Current().keys.get());
  }

 private:
  static constexpr char kBadSignature[] =
      "oidc: verify token: failed to verify signature: failed to verify id token signature";

  struct Snapshot {
    bool initialized;
    std::shared_ptr<const KeySet> keys;
    uint64_t generation;
  };
  Snapshot Current() const {
    std::lock_guard lock(mu_);
    return {!jwks_uri_.empty(), keys_, generation_};
  }

  // go-oidc's Verify, then the claims' mapping.
  AuthenticateResult Verify(const Unverified& token, const KeySet* keys) const {
    if (auto invalid = oidc_internal::CheckClaims(token.claims, options_, now_())) {
      return std::unexpected("oidc: verify token: " + *invalid);
    }
    const std::string alg = StringMember(token.header, "alg");
    if (std::ranges::find(options_.signing_algs, alg) == options_.signing_algs.end()) {
      return std::unexpected(
          "oidc: verify token: oidc: id token signed with unsupported "
          "algorithm, expected " +
          util::QuoteList(options_.signing_algs) + " got " + util::Quote(alg));
    }
    // A token naming its key is verified by the keys of that kid only; one naming none by
    // any key.
    const std::string kid = StringMember(token.header, "kid");
    const bool verified =
        keys && std::ranges::any_of(keys->keys, [&](const auto& k) {
          return (kid.empty() || k.first == kid) &&
                 jws::Verify(k.second.get(), alg, token.parts.signing_input, token.parts.signature);
        });
    if (!verified) return std::unexpected(kBadSignature);
    return oidc_internal::UserOf(token.claims, options_);
  }

  // Fetches the JWKS once for every caller that saw `generation` (the first fetches, the
  // others wait for its keys); an error when that fetch failed.
  Awaitable<std::expected<void, std::string>> RefreshKeys(uint64_t seen) const {
    auto wakeup = std::make_shared<storage::Wakeup>();
    std::string jwks_uri;
    {
      std::lock_guard lock(mu_);
      if (generation_ != seen) co_return last_refresh_;
      if (refreshing_) {
        waiters_.push_back(wakeup);
      } else {
        refreshing_ = true;
        jwks_uri = jwks_uri_;
      }
    }
    if (jwks_uri.empty()) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(35);
      while (true) {
        {
          std::lock_guard lock(mu_);
          if (generation_ != seen) co_return last_refresh_;
        }
        if (!co_await wakeup->Wait(deadline)) co_return std::unexpected("oidc: get keys timed out");
      }
    }
    auto jwks = co_await GetJSON(jwks_uri, options_.ca_pem, "keys", io_);
    std::expected<KeySet, std::string> keys =
        jwks ? ParseKeySet(*jwks) : std::unexpected("oidc: get keys failed: " + jwks.error());
    std::vector<std::shared_ptr<storage::Wakeup>> waiting;
    {
      std::lock_guard lock(mu_);
      if (keys) {
        keys_ = std::make_shared<const KeySet>(std::move(*keys));
        last_refresh_ = {};
      } else {
        last_refresh_ = std::unexpected(keys.error());
        KLOG_ERROR << "oidc: fetching the keys of " << options_.issuer_url << ": " << keys.error();
      }
      ++generation_;
      refreshing_ = false;
      waiting.swap(waiters_);
    }
    for (auto& w : waiting) w->Notify();
    co_return last_refresh_;
  }

  // The discovery document's jwks_uri, the issuer checked.
  Awaitable<std::expected<std::string, std::string>> Discover() const {
    std::string url = options_.issuer_url;
    while (url.ends_with('/')) url.pop_back();
    auto doc = co_await GetJSON(url + "/.well-known/openid-configuration", options_.ca_pem,
                                "provider discovery object", io_);
    if (!doc) co_return std::unexpected(doc.error());
    const std::string issuer = StringMember(*doc, "issuer");
    if (issuer != options_.issuer_url) {
      co_return std::unexpected(
          "oidc: issuer did not match the issuer returned by provider, expected " +
          util::Quote(options_.issuer_url) + " got " + util::Quote(issuer));
    }
    const std::string jwks_uri = StringMember(*doc, "jwks_uri");
    if (jwks_uri.empty()) co_return std::unexpected("oidc: the provider names no jwks_uri");
    co_return jwks_uri;
  }

  static Awaitable<void> Initialize(std::weak_ptr<OIDCAuthenticator> weak) {
    while (true) {
      std::shared_ptr<OIDCAuthenticator> self = weak.lock();
      if (!self) co_return;
      auto jwks_uri = co_await self->Discover();
      if (jwks_uri) {
        std::lock_guard lock(self->mu_);
        self->jwks_uri_ = std::move(*jwks_uri);
        KLOG_INFO << "oidc authenticator: initialized for issuer " << self->options_.issuer_url;
        co_return;
      }
      KLOG_ERROR << "oidc authenticator: initializing plugin: " << jwks_uri.error();
      self.reset();
      net::steady_timer timer(co_await net::this_coro::executor, kInitializeRetry);
      co_await timer.async_wait(net::use_awaitable);
    }
  }

  const OIDCOptions options_;
  const net::any_io_executor io_;  // the servers' io_context: fetches' connections
  const std::function<SystemClock::time_point()> now_;

  mutable std::mutex mu_;  // guards what follows; never held across an await
  std::string jwks_uri_;   // empty until discovery succeeded
  mutable std::shared_ptr<const KeySet> keys_;
  mutable uint64_t generation_ = 0;  // fetches of keys finished
  mutable bool refreshing_ = false;
  mutable std::expected<void, std::string> last_refresh_;
  mutable std::vector<std::shared_ptr<storage::Wakeup>> waiters_;
};

}  // namespace

namespace oidc_internal {

// go-oidc's checks of the claims, in its order, before the signature's.
std::optional<std::string> CheckClaims(const json& claims, const OIDCOptions& o,
                                       SystemClock::time_point now) {
  std::vector<std::string> aud;
  if (auto it = claims.find("aud"); it != claims.end() && !it->is_null()) {
    if (it->is_string()) {
      aud = {it->get<std::string>()};
    } else if (it->is_array() &&
               std::ranges::all_of(*it, [](const json& a) { return a.is_string(); })) {
      for (const json& a : *it) aud.push_back(a.get<std::string>());
    } else {
      return "oidc: failed to unmarshal claims: " + Mistyped(*it, "string");
    }
  }
  std::string error;
  const std::optional<int64_t> exp = NumericDate(claims, "exp", error);
  const std::optional<int64_t> nbf = NumericDate(claims, "nbf", error);
  if (!error.empty()) return error;
  if (std::ranges::find(aud, o.client_id) == aud.end()) {
    return "oidc: expected audience " + util::Quote(o.client_id) + " got " + util::QuoteList(aud);
  }
  const double now_seconds = std::chrono::duration<double>(now.time_since_epoch()).count();
  if (!exp || static_cast<double>(*exp) < now_seconds) {
    return "oidc: token is expired (Token Expiry: " +
           (exp ? GoTime(*exp) : std::string("0001-01-01 00:00:00 +0000 UTC")) + ")";
  }
  if (nbf && now_seconds + kNotBeforeLeewaySeconds < static_cast<double>(*nbf)) {
    return "oidc: current time " +
           GoTime(std::chrono::floor<std::chrono::seconds>(now.time_since_epoch()).count()) +
           " before the nbf (not before) time: " + GoTime(*nbf);
  }
  return std::nullopt;
}

// The user of verified claims, as upstream maps them with the flags' configuration.
AuthenticateResult UserOf(const json& claims, const OIDCOptions& o) {
  UserInfo user;
  auto name = claims.find(o.username_claim);
  if (name == claims.end()) {
    return std::unexpected("oidc: parse username claims " + util::Quote(o.username_claim) +
                           ": claim not present");
  }
  if (!name->is_string() && !name->is_null()) {
    return std::unexpected("oidc: parse username claims " + util::Quote(o.username_claim) + ": " +
                           Mistyped(*name, "string"));
  }
  if (o.username_claim == "email") {
    if (auto verified = claims.find("email_verified"); verified != claims.end()) {
      if (!verified->is_boolean() && !verified->is_null()) {
        return std::unexpected("oidc: parse 'email_verified' claim: " +
                               Mistyped(*verified, "bool"));
      }
      if (!verified->is_boolean() || !verified->get<bool>()) {
        return std::unexpected("oidc: email not verified");
      }
    }
  }
  std::string prefix = o.username_prefix;
  if (prefix.empty() && o.username_claim != "email") prefix = o.issuer_url + "#";
  if (prefix == "-") prefix.clear();
  user.name = prefix + (name->is_string() ? name->get<std::string>() : "");
  if (!o.groups_claim.empty()) {
    auto groups = claims.find(o.groups_claim);
    if (groups != claims.end() && !groups->is_null()) {
      std::vector<std::string> values;
      if (groups->is_string()) {
        values = {groups->get<std::string>()};
      } else if (groups->is_array() &&
                 std::ranges::all_of(*groups, [](const json& g) { return g.is_string(); })) {
        for (const json& g : *groups) values.push_back(g.get<std::string>());
      } else {
        return std::unexpected("oidc: parse groups claim " + util::Quote(o.groups_claim) + ": " +
                               Mistyped(groups->is_array() ? json::array() : *groups, "string"));
      }
      for (std::string& g : values) user.groups.push_back(o.groups_prefix + g);
    }
  }
  if (auto jti = claims.find("jti");
      jti != claims.end() && jti->is_string() && !jti->get<std::string>().empty()) {
    user.extra[kCredentialIDKey] = {"JTI=" + jti->get<std::string>()};
  }
  for (const auto& [claim, want] : o.required_claims) {
    auto it = claims.find(claim);
    if (it == claims.end()) {
      return std::unexpected("oidc: required claim " + claim + " not present in ID token");
    }
    if (!it->is_string()) {
      return std::unexpected("oidc: parse claim " + claim + ": " + Mistyped(*it, "string"));
    }
    if (it->get<std::string>() != want) {
      return std::unexpected("oidc: required claim " + claim + " value does not match. Got = " +
                             it->get<std::string>() + ", want = " + want);
    }
  }
  return user;
}

}  // namespace oidc_internal

const std::vector<std::string>& OIDCSupportedAlgorithms() {
  static const std::vector<std::string> algs = {"RS256", "RS384", "RS512", "ES256", "ES384",
                                                "ES512", "PS256", "PS384", "PS512"};
  return algs;
}

std::vector<std::string> ValidateOIDCOptions(const OIDCOptions& o) {
  std::vector<std::string> errors;
  const std::string field =
      "invalid authentication configuration: jwt[0].issuer.url: Invalid value: " +
      util::Quote(o.issuer_url) + ": ";
  auto url = apimachinery::gourl::Parse(o.issuer_url);
  if (!url) {
    errors.push_back(field + url.error());
  } else {
    std::vector<std::string> problems;
    if (url->scheme != "https") problems.push_back(field + "URL scheme must be https");
    if (url->has_user) problems.push_back(field + "URL must not contain a username or password");
    if (!url->raw_query.empty()) problems.push_back(field + "URL must not contain a query");
    if (!url->fragment.empty()) problems.push_back(field + "URL must not contain a fragment");
    if (problems.size() == 1) errors.push_back(problems[0]);
    if (problems.size() > 1) errors.push_back("[" + util::Join(problems, ", ") + "]");
  }
  if (o.username_claim.empty()) {
    errors.push_back(
        "invalid authentication configuration: jwt[0].claimMappings.username: Required value: "
        "claim or expression is required");
  }
  for (const auto& [claim, value] : o.required_claims) {
    if (claim.empty()) {
      errors.push_back(
          "invalid authentication configuration: jwt[0].claimValidationRules[0]: Required "
          "value: claim or expression is required");
    }
  }
  for (const std::string& alg : o.signing_algs) {
    if (std::ranges::find(OIDCSupportedAlgorithms(), alg) == OIDCSupportedAlgorithms().end()) {
      errors.push_back("oidc: unsupported signing alg: " + util::Quote(alg));
    }
  }
  return errors;
}

std::expected<AuthenticatorPtr, std::string> NewOIDCAuthenticator(
    const OIDCOptions& options, boost::asio::any_io_executor executor,
    std::function<SystemClock::time_point()> now) {
  std::vector<std::string> errors = ValidateOIDCOptions(options);
  if (!errors.empty()) return std::unexpected(util::Join(errors, ", "));
  auto auth = std::make_shared<OIDCAuthenticator>(options, std::move(executor), std::move(now));
  auth->StartInitializing();
  return auth;
}

}  // namespace authn
