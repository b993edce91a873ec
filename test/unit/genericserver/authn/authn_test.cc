#include <catch2/catch.hpp>

#include "pkg/genericserver/authn/token_file.h"
#include "pkg/genericserver/authn/union.h"
#include "pkg/genericserver/authn/x509.h"
#include "test/unit/support/await.h"

namespace {
genericserver::Request WithToken(const std::string& token) {
  genericserver::Request r = genericserver::Request::FromTarget("GET", "/api");
  if (!token.empty()) r.headers.Add("Authorization", "Bearer " + token);
  return r;
}
}  // namespace

TEST_CASE("token file: upstream CSV format") {
  auto auth = authn::TokenFileAuthenticator::Parse(
      "tok1,alice,uid-1,\"dev,ops\"\n"
      "\n"
      "tok2,bob,uid-2\r\n"
      ",nobody,uid-3\n"
      "tok3,carol,uid-4,single,ignored-extra\n",
      "tokens.csv");
  REQUIRE(auth);
  CHECK((*auth)->size() == 3);
  auto alice = (*auth)->Authenticate(WithToken("tok1"));
  REQUIRE(alice);
  REQUIRE(*alice);
  CHECK((*alice)->name == "alice");
  CHECK((*alice)->uid == "uid-1");
  CHECK((*alice)->groups == std::vector<std::string>{"dev", "ops"});
  auto bob = (*auth)->Authenticate(WithToken("tok2"));
  CHECK((*bob)->name == "bob");
  CHECK((*bob)->groups.empty());
  CHECK((*(*auth)->Authenticate(WithToken("tok3")))->groups == std::vector<std::string>{"single"});

  // Not this authenticator's: another may know it.
  auto unknown = (*auth)->Authenticate(WithToken("nope"));
  REQUIRE(unknown);
  CHECK_FALSE(*unknown);
  auto none = (*auth)->Authenticate(WithToken(""));
  REQUIRE(none);
  CHECK_FALSE(*none);
}

TEST_CASE("token file: short records and bad quoting are errors") {
  auto short_record = authn::TokenFileAuthenticator::Parse("tok,user\n", "t.csv");
  REQUIRE_FALSE(short_record);
  CHECK(short_record.error() ==
        "token file 't.csv' must have at least 3 columns (token, user name, user uid), found 2");
  CHECK_FALSE(authn::TokenFileAuthenticator::Parse("tok,user,uid,\"open\n", "t.csv"));
  CHECK_FALSE(authn::TokenFileAuthenticator::Load("/nonexistent/tokens.csv"));
}

TEST_CASE("bearer tokens are taken from the Authorization header only") {
  genericserver::Request r = genericserver::Request::FromTarget("GET", "/");
  r.headers.Add("Authorization", "  bearer abc  ");
  CHECK(authn::BearerToken(r) == "abc");
  r.headers.Set("Authorization", "Basic abc");
  CHECK(authn::BearerToken(r).empty());
  r.headers.Set("Authorization", "Bearer");
  CHECK(authn::BearerToken(r).empty());
}

TEST_CASE("x509: verified certificates map CN and O to the user") {
  authn::X509Authenticator x509;
  genericserver::Request r = genericserver::Request::FromTarget("GET", "/");
  CHECK_FALSE(*x509.Authenticate(r));
  auto peer = std::make_shared<genericserver::TlsPeer>();
  peer->presented = true;
  peer->verified = true;
  peer->common_name = "admin";
  peer->organizations = {"system:masters"};
  r.peer = peer;
  auto user = x509.Authenticate(r);
  REQUIRE(user);
  CHECK((*user)->name == "admin");
  CHECK((*user)->groups == std::vector<std::string>{"system:masters"});
  peer->verified = false;
  peer->verify_error = "unable to get local issuer certificate";
  CHECK_FALSE(x509.Authenticate(r));
}

TEST_CASE("union: first user wins, errors beat anonymous, groups are added") {
  auto tokens = *authn::TokenFileAuthenticator::Parse("good,alice,1\n", "t");
  auto with_anon = authn::NewUnionAuthenticator({tokens}, true);
  auto alice = with_anon->Authenticate(WithToken("good"));
  CHECK((*alice)->groups == std::vector<std::string>{"system:authenticated"});
  auto anon = with_anon->Authenticate(WithToken(""));
  REQUIRE(anon);
  CHECK((*anon)->name == "system:anonymous");
  CHECK((*anon)->groups == std::vector<std::string>{"system:unauthenticated"});
  CHECK_FALSE(with_anon->Authenticate(WithToken("bad")));
  auto without = authn::NewUnionAuthenticator({tokens}, false);
  auto nobody = without->Authenticate(WithToken(""));
  REQUIRE(nobody);
  CHECK_FALSE(*nobody);
  // A bearer token that no authenticator claims is refused, not taken for anonymous.
  auto no_tokens = authn::NewUnionAuthenticator({}, true);
  auto unclaimed = no_tokens->Authenticate(WithToken("not-a-jwt"));
  REQUIRE_FALSE(unclaimed);
  CHECK(unclaimed.error() == "invalid bearer token");
  CHECK(no_tokens->Authenticate(WithToken("")));
}

namespace {
// Like the token webhook: it knows a token only when awaited.
class RemoteOnly final : public authn::Authenticator {
 public:
  authn::AuthenticateResult Authenticate(const genericserver::Request&) const override {
    return std::unexpected("asynchronous only");
  }
  Awaitable<authn::AuthenticateResult> AuthenticateAsync(
      const genericserver::Request& r) const override {
    ++asked;
    if (authn::BearerToken(r) != "remote") co_return std::nullopt;
    authn::UserInfo user;
    user.name = "remote-user";
    co_return user;
  }
  mutable int asked = 0;
};
}  // namespace

TEST_CASE("union: awaited, local authenticators first, remote ones asked only when needed") {
  auto tokens = *authn::TokenFileAuthenticator::Parse("good,alice,1\n", "t");
  auto remote = std::make_shared<RemoteOnly>();
  auto chain = authn::NewUnionAuthenticator({tokens, remote}, false);
  auto alice = testsupport::AwaitNow(chain->AuthenticateAsync(WithToken("good")));
  CHECK((*alice)->name == "alice");
  CHECK(remote->asked == 0);
  auto user = testsupport::AwaitNow(chain->AuthenticateAsync(WithToken("remote")));
  REQUIRE(user);
  CHECK((*user)->name == "remote-user");
  CHECK((*user)->groups == std::vector<std::string>{"system:authenticated"});
  CHECK(remote->asked == 1);
  // A token neither knows is refused as nobody's.
  auto neither = testsupport::AwaitNow(chain->AuthenticateAsync(WithToken("other")));
  REQUIRE_FALSE(neither);
  CHECK(neither.error() == "invalid bearer token");
  // Synchronously, the remote one can only refuse.
  auto sync = chain->Authenticate(WithToken("remote"));
  REQUIRE_FALSE(sync);
  CHECK(sync.error() == "asynchronous only");
  // Several refusals, as upstream's aggregate error prints them.
  auto both = authn::NewUnionAuthenticator({remote, remote}, false)->Authenticate(WithToken("x"));
  REQUIRE_FALSE(both);
  CHECK(both.error() == "[asynchronous only, asynchronous only]");
}

TEST_CASE("tokens that name no audience are for the server's") {
  auto tokens = *authn::TokenFileAuthenticator::Parse("good,alice,1\n", "t");
  auto wrapped = authn::WithImplicitAudiences({"api", "other-api"}, tokens);
  auto normal = wrapped->Authenticate(WithToken("good"));
  REQUIRE(normal);
  REQUIRE(*normal);
  CHECK((*normal)->audiences == std::vector<std::string>{"api", "other-api"});
  // A review for some of them: those; for others: not this authenticator's.
  genericserver::Request review = WithToken("good");
  review.audiences = {"vault", "other-api"};
  auto some = testsupport::AwaitNow(wrapped->AuthenticateAsync(review));
  REQUIRE(some);
  REQUIRE(*some);
  CHECK((*some)->audiences == std::vector<std::string>{"other-api"});
  review.audiences = {"vault"};
  auto none = wrapped->Authenticate(review);
  REQUIRE(none);
  CHECK_FALSE(*none);
  CHECK(authn::IntersectAudiences({"a", "b"}, {"c", "b", "a"}) ==
        std::vector<std::string>{"b", "a"});
}
