#include <catch2/catch.hpp>

#include "pkg/genericserver/server/mux.h"
#include "pkg/genericserver/server/responses.h"
#include "test/unit/support/handler_harness.h"

namespace {
genericserver::HandlerPtr Says(std::string text) {
  return genericserver::MakeHandler(
      [text](genericserver::RequestContext&, genericserver::ResponseWriter& out) {
        return genericserver::WriteText(out, 200, text);
      });
}
}  // namespace

TEST_CASE("mux: exact paths first, then the longest prefix") {
  genericserver::PathMux mux;
  mux.Handle("/apis", Says("exact"));
  mux.HandlePrefix("/apis/", Says("apis"));
  mux.HandlePrefix("/apis/apps/", Says("apps"));
  mux.HandlePrefix("/b/", Says("b"));
  auto who = [&](const char* path) {
    genericserver::Handler* h = mux.Find(path);
    return h ? testing::Serve(*h, testing::MakeRequest("GET", path)).body : std::string("none");
  };
  CHECK(who("/apis") == "exact");
  CHECK(who("/apis/batch/v1") == "apis");
  CHECK(who("/apis/apps/v1") == "apps");
  CHECK(who("/apis/apps") == "apis");
  CHECK(who("/apis/appsx/v1") == "apis");
  CHECK(who("/b/x") == "b");
  CHECK(who("/a") == "none");
  CHECK(who("/") == "none");
}

TEST_CASE("director: unknown paths go to the not-found handler") {
  genericserver::NotFoundHandler not_found;
  genericserver::Director director("test", not_found);
  director.Mux().Handle("/mine", Says("mine"));
  CHECK(testing::Serve(director, testing::MakeRequest("GET", "/mine")).body == "mine");
  auto r = testing::Serve(director, testing::MakeRequest("GET", "/other"));
  CHECK(r.status == 404);
  CHECK(r.Json()["message"] == "the server could not find the requested resource");
}
