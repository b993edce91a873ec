#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/status.h"

using apimachinery::GroupResource;

TEST_CASE("Status encodes in upstream's shape") {
  auto s = apimachinery::NewNotFound(GroupResource{"apps", "deployments"}, "web");
  CHECK(apimachinery::EncodeStatus(s) ==
        R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
        R"("message":"deployments.apps \"web\" not found","reason":"NotFound",)"
        R"("details":{"name":"web","group":"apps","kind":"deployments"},"code":404})");
}

TEST_CASE("Status constructors carry the upstream reasons and codes") {
  auto j = [](const apimachinery::Status& s) {
    return nlohmann::json::parse(apimachinery::EncodeStatus(s));
  };
  auto core = j(apimachinery::NewNotFound(GroupResource{"", "pods"}, "p"));
  CHECK(core["message"] == "pods \"p\" not found");

  auto forbidden = j(apimachinery::NewForbidden({}, "", "User \"u\" cannot get path \"/x\""));
  CHECK(forbidden["code"] == 403);
  CHECK(forbidden["reason"] == "Forbidden");
  CHECK(forbidden["message"] == "forbidden: User \"u\" cannot get path \"/x\"");
  CHECK(forbidden["details"] == nlohmann::json::object());

  auto named = j(apimachinery::NewForbidden({"apps", "deployments"}, "d", "why"));
  CHECK(named["message"] == "deployments.apps \"d\" is forbidden: why");

  auto big = j(apimachinery::NewRequestEntityTooLarge("limit is 3145728"));
  CHECK(big["code"] == 413);
  CHECK(big["message"] == "Request entity too large: limit is 3145728");
  CHECK_FALSE(big.contains("details"));

  auto busy = j(apimachinery::NewTooManyRequests("slow down", 1));
  CHECK(busy["code"] == 429);
  CHECK(busy["details"]["retryAfterSeconds"] == 1);

  auto timeout = j(apimachinery::NewTimeoutError("took too long", 0));
  CHECK(timeout["code"] == 504);
  CHECK(timeout["message"] == "Timeout: took too long");

  auto internal = j(apimachinery::NewInternalError("boom"));
  CHECK(internal["message"] == "Internal error occurred: boom");
  CHECK(internal["details"]["causes"][0]["message"] == "boom");

  auto path = j(apimachinery::NewPathNotFound());
  CHECK(path["message"] == "the server could not find the requested resource");
  CHECK(j(apimachinery::NewUnauthorized(""))["message"] == "not authorized");
}
