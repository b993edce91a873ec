// Request-header authentication: who may set the headers (a certificate the request-header
// CAs verified, with an allowed CN), how the user is read from them, and that the two CA
// pools stay apart (a front-proxy certificate is no user of its own).
#include <catch2/catch.hpp>

#include "pkg/genericserver/authn/request_header.h"
#include "pkg/genericserver/authn/union.h"
#include "pkg/genericserver/authn/x509.h"
#include "pkg/genericserver/endpoints/filters/authentication.h"
#include "pkg/genericserver/server/request_context.h"
#include "pkg/genericserver/server/responses.h"
#include "test/unit/support/handler_harness.h"

namespace {

authn::RequestHeaderConfig Kubeadm() {
  authn::RequestHeaderConfig c = authn::StandardRequestHeaders();
  c.uid_headers.clear();  // as the flags configure it: no --requestheader-uid-headers
  c.allowed_names = {"front-proxy-client"};
  return c;
}

// A peer as the TLS layer reports it.
std::shared_ptr<genericserver::TlsPeer> Peer(const std::string& cn, bool client_ca,
                                             bool request_header_ca) {
  auto peer = std::make_shared<genericserver::TlsPeer>();
  peer->presented = true;
  peer->common_name = cn;
  peer->verified = client_ca;
  if (!client_ca) peer->verify_error = "unable to get local issuer certificate";
  peer->request_header_verified = request_header_ca;
  if (!request_header_ca)
    peer->request_header_verify_error = "unable to get local issuer certificate";
  return peer;
}

genericserver::Request Get(std::shared_ptr<genericserver::TlsPeer> peer,
                           std::vector<std::pair<std::string, std::string>> headers) {
  genericserver::Request r = genericserver::Request::FromTarget("GET", "/api");
  r.peer = std::move(peer);
  for (auto& [k, v] : headers) r.headers.Add(k, v);
  return r;
}

}  // namespace

TEST_CASE("request header: the user, groups and extra of a front proxy's headers") {
  authn::RequestHeaderAuthenticator auth(Kubeadm());
  auto r =
      Get(Peer("front-proxy-client", false, true), {{"X-Remote-User", "alice"},
                                                    {"x-remote-group", "g1"},
                                                    {"X-Remote-Group", "g2"},
                                                    {"X-Remote-Group", ""},
                                                    {"X-Remote-Extra-Scopes", "read"},
                                                    {"x-remote-extra-scopes", "write"},
                                                    {"X-Remote-Extra-Example.com%2fTeam", "blue"},
                                                    {"X-Remote-Extra-Bad%zz", "kept"},
                                                    {"X-Other", "x"}});
  auto user = auth.Authenticate(r);
  REQUIRE(user);
  REQUIRE(*user);
  CHECK((*user)->name == "alice");
  CHECK((*user)->groups == std::vector<std::string>{"g1", "g2"});
  CHECK((*user)->extra ==
        std::map<std::string, std::vector<std::string>>{
            {"scopes", {"read", "write"}}, {"example.com/team", {"blue"}}, {"bad%zz", {"kept"}}});
  CHECK((*user)->uid.empty());  // no UID headers configured: X-Remote-Uid is not read
  r.headers.Add("X-Remote-Uid", "u-1");
  CHECK((*auth.Authenticate(r))->uid.empty());
  authn::RequestHeaderConfig with_uid = Kubeadm();
  with_uid.uid_headers = {"X-Remote-Uid"};
  CHECK((*authn::RequestHeaderAuthenticator(with_uid).Authenticate(r))->uid == "u-1");
}

TEST_CASE("request header: the first username header with a value wins") {
  authn::RequestHeaderConfig c;
  c.username_headers = {"X-Remote-User", "X-Forwarded-User"};
  authn::RequestHeaderAuthenticator auth(c);
  auto peer = Peer("any", false, true);
  CHECK((*auth.Authenticate(Get(peer, {{"X-Forwarded-User", "bob"}})))->name == "bob");
  CHECK(
      (*auth.Authenticate(Get(peer, {{"X-Remote-User", ""}, {"X-Forwarded-User", "bob"}})))->name ==
      "bob");
  CHECK((*auth.Authenticate(Get(peer, {{"X-Forwarded-User", "bob"}, {"X-Remote-User", "al"}})))
            ->name == "al");
  // No allowed names: any certificate of the request-header CAs.
  CHECK((*auth.Authenticate(Get(Peer("whoever", false, true), {{"X-Remote-User", "al"}})))->name ==
        "al");
}

TEST_CASE("request header: no certificate or no user name is no opinion") {
  authn::RequestHeaderAuthenticator auth(Kubeadm());
  auto none = auth.Authenticate(Get(nullptr, {{"X-Remote-User", "alice"}}));
  REQUIRE(none);
  CHECK_FALSE(*none);
  auto not_presented = std::make_shared<genericserver::TlsPeer>();
  CHECK_FALSE(*auth.Authenticate(Get(not_presented, {{"X-Remote-User", "alice"}})));
  auto nameless = auth.Authenticate(Get(Peer("front-proxy-client", false, true),
                                        {{"X-Remote-Group", "g1"}, {"X-Remote-User", ""}}));
  REQUIRE(nameless);
  CHECK_FALSE(*nameless);
}

TEST_CASE("request header: a certificate of another CA or CN is refused") {
  authn::RequestHeaderAuthenticator auth(Kubeadm());
  auto other_ca =
      auth.Authenticate(Get(Peer("front-proxy-client", true, false), {{"X-Remote-User", "alice"}}));
  REQUIRE_FALSE(other_ca);
  CHECK(other_ca.error().find("unable to get local issuer certificate") != std::string::npos);
  auto other_cn = auth.Authenticate(Get(Peer("mallory", false, true), {{"X-Remote-User", "x"}}));
  REQUIRE_FALSE(other_cn);
  CHECK(other_cn.error() == "x509: subject with cn=mallory is not in the allowed list");
}

TEST_CASE("request header and x509 in a union: the two CA pools stay apart") {
  auto with_headers =
      authn::NewUnionAuthenticator({std::make_shared<authn::RequestHeaderAuthenticator>(Kubeadm()),
                                    std::make_shared<authn::X509Authenticator>()},
                                   /*anonymous=*/true);
  const std::vector<std::pair<std::string, std::string>> alice = {{"X-Remote-User", "alice"},
                                                                  {"X-Remote-Group", "g1"}};
  // The front proxy names the user.
  auto proxied = with_headers->Authenticate(Get(Peer("front-proxy-client", false, true), alice));
  REQUIRE(proxied);
  CHECK((*proxied)->name == "alice");
  CHECK((*proxied)->groups == std::vector<std::string>{"g1", "system:authenticated"});
  // Without headers its certificate is no user: the client CAs do not know it (401, even
  // with anonymous on).
  CHECK_FALSE(with_headers->Authenticate(Get(Peer("front-proxy-client", false, true), {})));
  // An ordinary client certificate stays itself whatever headers it sends.
  auto admin = with_headers->Authenticate(Get(Peer("admin", true, false), alice));
  REQUIRE(admin);
  CHECK((*admin)->name == "admin");
  // A certificate both pools trust: the headers win, as upstream's order has it.
  auto both = with_headers->Authenticate(Get(Peer("front-proxy-client", true, true), alice));
  CHECK((*both)->name == "alice");
  CHECK((*with_headers->Authenticate(Get(Peer("front-proxy-client", true, true), {})))->name ==
        "front-proxy-client");
  // No certificate: the headers are ignored.
  CHECK((*with_headers->Authenticate(Get(nullptr, alice)))->name == "system:anonymous");
}

TEST_CASE("request header: clearing removes the configured headers in any case") {
  genericserver::Headers h;
  h.Add("X-Remote-User", "a");
  h.Add("x-remote-user", "b");
  h.Add("X-Remote-Group", "g");
  h.Add("X-REMOTE-EXTRA-Foo", "1");
  h.Add("X-Remote-Extra-Bar", "2");
  h.Add("X-Remote-Uid", "u");
  h.Add("X-Remote-Userx", "kept");
  h.Add("Accept", "application/json");
  authn::ClearAuthenticationHeaders(h, authn::StandardRequestHeaders());
  std::vector<std::string> left;
  for (const auto& [k, v] : h.Items()) left.push_back(k);
  CHECK(left == std::vector<std::string>{"X-Remote-Userx", "Accept"});
}

TEST_CASE("request header: extra keys are lower-cased, then percent-decoded") {
  CHECK(authn::ExtraKey("Scopes") == "scopes");
  CHECK(authn::ExtraKey("Example.Com%2FName") == "example.com/name");
  CHECK(authn::ExtraKey("a+b%20c") == "a+b c");
  CHECK(authn::ExtraKey("50%") == "50%");
  CHECK(authn::ExtraKey("x%4") == "x%4");
  CHECK(authn::ExtraKey("%e2%9c%93") == "\xe2\x9c\x93");
}

namespace {

// Records the headers and user that reach it.
class Capture final : public genericserver::Handler {
 public:
  Awaitable<void> Serve(genericserver::RequestContext& ctx,
                        genericserver::ResponseWriter& out) override {
    headers = ctx.request.headers;
    user = ctx.user;
    co_await genericserver::WriteText(out, 200, "ok");
  }
  genericserver::Headers headers;
  std::optional<authn::UserInfo> user;
};

}  // namespace

TEST_CASE("authentication filter: identity headers do not travel past authentication") {
  authn::RequestHeaderConfig custom;
  custom.username_headers = {"X-Proxy-User"};
  custom.group_headers = {"X-Proxy-Group"};
  custom.extra_header_prefixes = {"X-Proxy-Extra-"};
  auto authenticator =
      authn::NewUnionAuthenticator({std::make_shared<authn::RequestHeaderAuthenticator>(custom),
                                    std::make_shared<authn::X509Authenticator>()},
                                   /*anonymous=*/false);
  auto capture = std::make_unique<Capture>();
  Capture* seen = capture.get();
  auto chain = genericserver::filters::WithAuthentication(
      std::move(capture), authenticator,
      std::make_shared<const authn::RequestHeaderConfig>(custom));

  // The front proxy: its headers name the user and are gone afterwards, like the standard
  // ones it did not use.
  auto proxied = testing::MakeRequest("GET", "/api");
  proxied.request.peer = Peer("front-proxy-client", false, true);
  for (const auto& [k, v] :
       std::vector<std::pair<std::string, std::string>>{{"X-Proxy-User", "alice"},
                                                        {"X-Proxy-Group", "g1"},
                                                        {"X-Proxy-Extra-Team", "blue"},
                                                        {"X-Remote-User", "mallory"},
                                                        {"X-Remote-Extra-Foo", "bar"},
                                                        {"X-Remote-Uid", "u"},
                                                        {"Authorization", "Bearer x"},
                                                        {"Accept", "application/json"}}) {
    proxied.request.headers.Add(k, v);
  }
  REQUIRE(testing::Serve(*chain, std::move(proxied)).status == 200);
  REQUIRE(seen->user);
  CHECK(seen->user->name == "alice");
  CHECK(seen->user->extra.at("team") == std::vector<std::string>{"blue"});
  std::vector<std::string> left;
  for (const auto& [k, v] : seen->headers.Items()) left.push_back(k);
  CHECK(left == std::vector<std::string>{"Accept"});

  // Any other user: the standard headers are removed too.
  auto admin = testing::MakeRequest("GET", "/api");
  admin.request.peer = Peer("admin", true, false);
  admin.request.headers.Add("X-Remote-User", "alice");
  admin.request.headers.Add("X-Remote-Group", "system:masters");
  REQUIRE(testing::Serve(*chain, std::move(admin)).status == 200);
  CHECK(seen->user->name == "admin");
  CHECK(seen->headers.Items().empty());

  // The front proxy's certificate alone is no user.
  auto bare = testing::MakeRequest("GET", "/api");
  bare.request.peer = Peer("front-proxy-client", false, true);
  CHECK(testing::Serve(*chain, std::move(bare)).status == 401);
}
