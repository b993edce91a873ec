#include <catch2/catch.hpp>

#include "pkg/pki/pki.h"

TEST_CASE("a generated CA signs leaves that verify against it") {
  auto ca = pki::GenerateCA("test-ca", std::chrono::hours(24));
  REQUIRE(ca);
  auto ca_info = pki::ParseCertificate(ca->cert_pem);
  REQUIRE(ca_info);
  CHECK(ca_info->is_ca);
  CHECK(ca_info->common_name == "test-ca");

  pki::CertRequest req;
  req.common_name = "server";
  req.organizations = {"o1", "o2"};
  req.dns_names = {"localhost", "example.test"};
  req.ip_addresses = {"127.0.0.1", "::1"};
  req.server_auth = true;
  auto leaf = pki::GenerateSigned(*ca, req);
  REQUIRE(leaf);
  CHECK(pki::IssuedBy(leaf->cert_pem, ca->cert_pem));
  CHECK(pki::KeyMatches(leaf->cert_pem, leaf->key_pem));
  CHECK_FALSE(pki::KeyMatches(leaf->cert_pem, ca->key_pem));
  auto info = pki::ParseCertificate(leaf->cert_pem);
  REQUIRE(info);
  CHECK_FALSE(info->is_ca);
  CHECK(info->organizations == std::vector<std::string>{"o1", "o2"});
  CHECK(info->dns_names == std::vector<std::string>{"localhost", "example.test"});
  CHECK(info->ip_addresses == std::vector<std::string>{"127.0.0.1", "::1"});
  CHECK(info->not_after > std::chrono::system_clock::now());

  auto other = pki::GenerateCA("other", std::chrono::hours(24));
  CHECK_FALSE(pki::IssuedBy(leaf->cert_pem, other->cert_pem));
}

TEST_CASE("bundles and addresses are checked") {
  CHECK_FALSE(pki::ValidateBundle("garbage"));
  auto ca = pki::GenerateCA("x", std::chrono::hours(1));
  CHECK(pki::ValidateBundle(ca->cert_pem + ca->cert_pem));
  CHECK(pki::CanonicalIP("::0001") == "::1");
  CHECK(pki::CanonicalIP("10.0.0.1") == "10.0.0.1");
  CHECK(pki::CanonicalIP("host").empty());
}

TEST_CASE("bundles split into certificates encoded again, with their expiry") {
  auto a = pki::GenerateCA("a", std::chrono::hours(2));
  auto b = pki::GenerateCA("b", std::chrono::hours(48));
  auto both = pki::SplitBundle("comment\n" + a->cert_pem + "\n\n" + b->cert_pem);
  REQUIRE(both);
  REQUIRE(both->size() == 2);
  CHECK((*both)[0].pem == a->cert_pem);
  CHECK((*both)[1].pem == b->cert_pem);
  CHECK((*both)[0].not_after < (*both)[1].not_after);
  CHECK((*both)[0].not_after > std::chrono::system_clock::now() + std::chrono::minutes(110));
  auto none = pki::SplitBundle("");
  REQUIRE(none);
  CHECK(none->empty());
  std::string broken = a->cert_pem;
  broken.replace(broken.find('\n') + 5, 8, "!!!!!!!!");
  CHECK_FALSE(pki::SplitBundle(broken));
}
