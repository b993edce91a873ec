#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "pkg/options/options.h"
#include "pkg/pki/pki.h"
#include "pkg/util/file.h"

namespace {

namespace fs = std::filesystem;

struct TempDir {
  TempDir() {
    char tmpl[] = "/tmp/kas-options-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string path;
};

bool Contains(const std::vector<std::string>& errors, const std::string& text) {
  for (const auto& e : errors) {
    if (e.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("default options validate") {
  options::Options o;
  CHECK(o.Validate().empty());
}

TEST_CASE("Validate reports each bad flag") {
  struct Case {
    std::function<void(options::Options&)> mutate;
    std::string error;
  };
  std::vector<Case> cases = {
      {[](auto& o) { o.secure_serving.secure_port = 0; },
       "--secure-port 0 must be between 1 and 65535, inclusive. It cannot be turned off with 0"},
      {[](auto& o) { o.secure_serving.secure_port = 65536; }, "--secure-port 65536 must be"},
      {[](auto& o) { o.secure_serving.bind_address = "nope"; },
       "--bind-address \"nope\" is not a valid IP address"},
      {[](auto& o) { o.generic.advertise_address = "1.2.3"; },
       "--advertise-address \"1.2.3\" is not a valid IP address"},
      {[](auto& o) { o.secure_serving.tls_cert_file = "/nonexistent/cert.pem"; },
       "--tls-cert-file and --tls-private-key-file must be given together"},
      {[](auto& o) {
         o.secure_serving.tls_cert_file = "/nonexistent/cert.pem";
         o.secure_serving.tls_private_key_file = "/nonexistent/key.pem";
       },
       "--tls-private-key-file \"/nonexistent/key.pem\": no such file"},
      {[](auto& o) { o.authentication.client_ca_file = "/nonexistent/ca.pem"; },
       "--client-ca-file \"/nonexistent/ca.pem\": no such file"},
      {[](auto& o) { o.authentication.token_auth_file = "/nonexistent/tokens.csv"; },
       "--token-auth-file \"/nonexistent/tokens.csv\": no such file"},
      {[](auto& o) { o.authorization.modes = {"Node"}; },
       "authorization-mode \"Node\" is not a valid mode"},
      {[](auto& o) {
         o.authorization.modes = {"AlwaysAllow", "AlwaysAllow"};
       },
       "authorization-mode \"AlwaysAllow\" has mode specified more than once"},
      {[](auto& o) { o.authorization.modes = {}; },
       "at least one authorization-mode must be passed"},
      {[](auto& o) { o.storage.storage_backend = "leveldb"; },
       "--storage-backend invalid, allowed values: sqlite, etcd3, memory"},
      {[](auto& o) { o.storage.storage_backend = "etcd3"; }, "--etcd-servers must be specified"},
      {[](auto& o) { o.storage.etcd_servers = {"localhost:2379"}; },
       "--etcd-servers \"localhost:2379\" is not a valid URL"},
      {[](auto& o) { o.storage.etcd_cafile = "/nonexistent/ca.pem"; },
       "--etcd-cafile \"/nonexistent/ca.pem\": no such file"},
      {[](auto& o) { o.storage.etcd_certfile = "/etc/hostname"; },
       "--etcd-certfile and --etcd-keyfile must be given together"},
      {[](auto& o) { o.storage.compaction_interval = std::chrono::seconds(-1); },
       "--etcd-compaction-interval can not be negative value"},
      {[](auto& o) { o.storage.etcd_prefix = "registry"; },
       "--etcd-prefix \"registry\" must start with \"/\""},
      {[](auto& o) { o.embedded.data_dir = ""; }, "--data-dir must not be empty"},
      {[](auto& o) { o.embedded.data_dir = "/etc/hostname"; },
       "--data-dir \"/etc/hostname\" is not a directory"},
      {[](auto& o) { o.service.service_cluster_ip_range = "10.0.0.0/8"; },
       "specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must "
       "be >= 12"},
      {[](auto& o) { o.service.service_cluster_ip_range = "fd00::/64"; },
       "for 128-bit addresses, the mask must be >= 108"},
      {[](auto& o) { o.service.service_cluster_ip_range = "10.0.0.0/24,10.1.0.0/24"; },
       "must be of different IP family"},
      {[](auto& o) { o.service.service_cluster_ip_range = "a,b,c"; },
       "--service-cluster-ip-range must not contain more than two entries"},
      {[](auto& o) { o.service.service_cluster_ip_range = "10.0.0.0"; },
       "service-cluster-ip-range[0] is not a valid cidr"},
      {[](auto& o) { o.service.service_node_port_range = "32767-30000"; },
       "--service-node-port-range: unable to parse \"32767-30000\" as a port range"},
      {[](auto& o) { o.service.service_node_port_range = "30000"; },
       "--service-node-port-range: unable to parse \"30000\" as a port range"},
      {[](auto& o) { o.generic.max_requests_inflight = -1; },
       "--max-requests-inflight can not be negative value"},
      {[](auto& o) { o.generic.max_mutating_requests_inflight = -1; },
       "--max-mutating-requests-inflight can not be negative value"},
      {[](auto& o) { o.generic.request_timeout = std::chrono::seconds(-1); },
       "--request-timeout can not be negative value"},
      {[](auto& o) { o.generic.shutdown_delay_duration = std::chrono::seconds(-1); },
       "--shutdown-delay-duration can not be negative value"},
      {[](auto& o) { o.verbosity = -1; }, "-v -1 must not be negative"},
      {[](auto& o) { o.aggregator.proxy_client_cert_file = "/etc/hostname"; },
       "--proxy-client-cert-file and --proxy-client-key-file must be given together"},
      {[](auto& o) { o.aggregator.proxy_client_key_file = "/etc/hostname"; },
       "--proxy-client-cert-file and --proxy-client-key-file must be given together"},
      {[](auto& o) {
         o.aggregator.proxy_client_cert_file = "/nonexistent/proxy.crt";
         o.aggregator.proxy_client_key_file = "/etc/hostname";
       },
       "--proxy-client-cert-file \"/nonexistent/proxy.crt\": no such file"},
      {[](auto& o) { o.authentication.requestheader_client_ca_file = "/nonexistent/fp.pem"; },
       "--requestheader-client-ca-file \"/nonexistent/fp.pem\": no such file"},
      {[](auto& o) {
         o.authentication.requestheader_username_headers = {"X-Remote-User", " "};
       },
       "empty value in \"requestheader-username-headers\""},
      {[](auto& o) { o.authentication.requestheader_group_headers = {""}; },
       "empty value in \"requestheader-group-headers\""},
      {[](auto& o) { o.authentication.requestheader_extra_headers_prefix = {""}; },
       "empty value in \"requestheader-extra-headers-prefix\""},
      {[](auto& o) {
         o.authentication.requestheader_allowed_names = {"a", ""};
       },
       "empty value in \"requestheader-allowed-names\""},
  };
  for (const Case& c : cases) {
    options::Options o;
    c.mutate(o);
    auto errors = o.Validate();
    INFO("expected: " << c.error);
    CHECK(Contains(errors, c.error));
  }
}

TEST_CASE("Validate returns all errors together") {
  options::Options o;
  o.secure_serving.secure_port = 0;
  o.storage.storage_backend = "etcd3";
  o.generic.max_requests_inflight = -5;
  CHECK(o.Validate().size() == 3);
}

TEST_CASE("Complete generates the PKI and kubeconfig once and reuses them") {
  TempDir tmp;
  options::Options o;
  o.embedded.data_dir = tmp.path + "/data";
  o.secure_serving.bind_address = "127.0.0.1";
  o.secure_serving.secure_port = 16444;
  auto done = o.Complete();
  REQUIRE(done);
  const auto& pki = done->Pki();
  CHECK(pki.ca_cert == tmp.path + "/data/pki/ca.crt");
  for (const auto& f : {pki.ca_cert, pki.ca_key, pki.serving_cert, pki.serving_key, pki.admin_cert,
                        pki.admin_key, done->AdminKubeconfig()}) {
    CHECK(fs::exists(f));
  }
  CHECK((fs::status(pki.admin_key).permissions() & fs::perms::others_read) == fs::perms::none);
  auto admin = pki::ParseCertificate(*util::ReadFile(pki.admin_cert));
  REQUIRE(admin);
  CHECK(admin->common_name == "admin");
  CHECK(admin->organizations == std::vector<std::string>{"system:masters"});
  auto serving = pki::ParseCertificate(*util::ReadFile(pki.serving_cert));
  REQUIRE(serving);
  for (const char* ip : {"127.0.0.1", "::1", "10.0.0.1"}) {
    CHECK(std::ranges::find(serving->ip_addresses, ip) != serving->ip_addresses.end());
  }
  CHECK(std::ranges::find(serving->dns_names, "localhost") != serving->dns_names.end());
  std::string kubeconfig = *util::ReadFile(done->AdminKubeconfig());
  CHECK(kubeconfig.find("server: https://127.0.0.1:16444") != std::string::npos);
  CHECK(kubeconfig.find("certificate-authority-data: ") != std::string::npos);
  CHECK(kubeconfig.find("client-key-data: ") != std::string::npos);

  const std::string ca_before = *util::ReadFile(pki.ca_cert);
  const std::string serving_before = *util::ReadFile(pki.serving_cert);
  auto again = o.Complete();
  REQUIRE(again);
  CHECK(*util::ReadFile(pki.ca_cert) == ca_before);
  CHECK(*util::ReadFile(pki.serving_cert) == serving_before);

  // A new address to cover: same CA, new serving certificate.
  o.generic.advertise_address = "192.0.2.7";
  auto moved = o.Complete();
  REQUIRE(moved);
  CHECK(*util::ReadFile(pki.ca_cert) == ca_before);
  auto reissued = pki::ParseCertificate(*util::ReadFile(pki.serving_cert));
  CHECK(std::ranges::find(reissued->ip_addresses, "192.0.2.7") != reissued->ip_addresses.end());
}

TEST_CASE("Complete turns anonymous off under AlwaysAllow only") {
  TempDir tmp;
  options::Options o;
  o.embedded.data_dir = tmp.path;
  auto done = o.Complete();
  REQUIRE(done);
  CHECK_FALSE(done->Get().authentication.anonymous_auth);
  o.authorization.modes = {"AlwaysDeny"};
  auto deny = o.Complete();
  REQUIRE(deny);
  CHECK(deny->Get().authentication.anonymous_auth);
}

TEST_CASE("Complete fails on a malformed token file and client CA") {
  TempDir tmp;
  std::ofstream(tmp.path + "/tokens.csv") << "onlytoken,user\n";
  std::ofstream(tmp.path + "/ca.pem") << "not a certificate\n";
  options::Options o;
  o.embedded.data_dir = tmp.path + "/data";
  o.authentication.token_auth_file = tmp.path + "/tokens.csv";
  o.authentication.client_ca_file = tmp.path + "/ca.pem";
  auto done = o.Complete();
  REQUIRE_FALSE(done);
  CHECK(done.error().size() == 2);
  CHECK(Contains(done.error(), "must have at least 3 columns"));
  CHECK(Contains(done.error(), "--client-ca-file"));
}

TEST_CASE("GenericConfig carries the flags to the servers") {
  TempDir tmp;
  options::Options o;
  o.embedded.data_dir = tmp.path;
  o.secure_serving.secure_port = 7443;
  o.generic.advertise_address = "192.0.2.1";
  o.generic.max_requests_inflight = 7;
  o.generic.request_timeout = std::chrono::seconds(5);
  auto done = o.Complete();
  REQUIRE(done);
  auto c = done->GenericConfig();
  CHECK(c.secure_serving.port == 7443);
  CHECK(c.secure_serving.cert_file == done->Pki().serving_cert);
  CHECK(c.secure_serving.client_ca_files == std::vector<std::string>{done->Pki().ca_cert});
  CHECK(c.max_requests_in_flight == 7);
  CHECK(c.request_timeout == std::chrono::seconds(5));
  CHECK(c.external_address == "192.0.2.1:7443");
}

TEST_CASE("Complete generates the front proxy apart from the client CA, and reuses it") {
  TempDir tmp;
  options::Options o;
  o.embedded.data_dir = tmp.path;
  auto done = o.Complete();
  REQUIRE(done);
  const auto& pki = done->Pki();
  CHECK(pki.front_proxy_ca_cert == tmp.path + "/pki/front-proxy-ca.crt");
  CHECK(pki.front_proxy_client_key == tmp.path + "/pki/front-proxy-client.key");
  for (const auto& f : {pki.front_proxy_ca_cert, pki.front_proxy_ca_key,
                        pki.front_proxy_client_cert, pki.front_proxy_client_key}) {
    CHECK(fs::exists(f));
  }
  CHECK((fs::status(pki.front_proxy_client_key).permissions() & fs::perms::group_read) ==
        fs::perms::none);
  const std::string ca = *util::ReadFile(pki.ca_cert);
  const std::string front_proxy_ca = *util::ReadFile(pki.front_proxy_ca_cert);
  const std::string client = *util::ReadFile(pki.front_proxy_client_cert);
  CHECK(front_proxy_ca != ca);
  auto ca_info = pki::ParseCertificate(front_proxy_ca);
  REQUIRE(ca_info);
  CHECK(ca_info->is_ca);
  CHECK(ca_info->not_after > std::chrono::system_clock::now() + std::chrono::hours(24 * 365 * 9));
  auto info = pki::ParseCertificate(client);
  REQUIRE(info);
  CHECK(info->common_name == "front-proxy-client");
  CHECK(info->organizations.empty());
  CHECK(info->not_after < std::chrono::system_clock::now() + std::chrono::hours(24 * 366));
  CHECK(pki::IssuedBy(client, front_proxy_ca));
  CHECK_FALSE(pki::IssuedBy(client, ca));
  CHECK(pki::KeyMatches(client, *util::ReadFile(pki.front_proxy_client_key)));

  // What the servers get: the generated client certificate for the aggregator, the two CAs
  // apart, request headers as kubeadm configures them.
  CHECK(done->ProxyClientCertFile() == pki.front_proxy_client_cert);
  CHECK(done->ProxyClientKeyFile() == pki.front_proxy_client_key);
  CHECK(done->Get().aggregator.enable_aggregator_routing);
  CHECK(done->ClientCAFiles() == std::vector<std::string>{pki.ca_cert});
  CHECK(done->ClientCABundle() == ca);
  CHECK(done->RequestHeaderCAFiles() == std::vector<std::string>{pki.front_proxy_ca_cert});
  CHECK(done->RequestHeaderCABundle() == front_proxy_ca);
  const auto& authn = done->Get().authentication;
  CHECK(authn.requestheader_client_ca_file.empty());
  CHECK(authn.requestheader_allowed_names == std::vector<std::string>{"front-proxy-client"});
  CHECK(authn.requestheader_username_headers == std::vector<std::string>{"X-Remote-User"});
  CHECK(authn.requestheader_group_headers == std::vector<std::string>{"X-Remote-Group"});
  CHECK(authn.requestheader_extra_headers_prefix == std::vector<std::string>{"X-Remote-Extra-"});
  auto c = done->GenericConfig();
  CHECK(c.secure_serving.client_ca_files == std::vector<std::string>{pki.ca_cert});
  CHECK(c.secure_serving.request_header_ca_files ==
        std::vector<std::string>{pki.front_proxy_ca_cert});
  REQUIRE(c.request_header);
  CHECK(c.request_header->allowed_names == std::vector<std::string>{"front-proxy-client"});
  CHECK(c.request_header->username_headers == std::vector<std::string>{"X-Remote-User"});

  // A restart reuses both.
  REQUIRE(o.Complete());
  CHECK(*util::ReadFile(pki.front_proxy_ca_cert) == front_proxy_ca);
  CHECK(*util::ReadFile(pki.front_proxy_client_cert) == client);

  // A client certificate about to expire is issued again by the same CA.
  auto ca_pair = pki::KeyPair{front_proxy_ca, *util::ReadFile(pki.front_proxy_ca_key)};
  pki::CertRequest short_lived;
  short_lived.common_name = "front-proxy-client";
  short_lived.client_auth = true;
  short_lived.validity = std::chrono::hours(24);
  auto expiring = pki::GenerateSigned(ca_pair, short_lived);
  REQUIRE(expiring);
  REQUIRE(util::WriteFileAtomic(pki.front_proxy_client_cert, expiring->cert_pem, 0644));
  REQUIRE(util::WriteFileAtomic(pki.front_proxy_client_key, expiring->key_pem, 0600));
  REQUIRE(o.Complete());
  const std::string renewed = *util::ReadFile(pki.front_proxy_client_cert);
  CHECK(renewed != expiring->cert_pem);
  CHECK(pki::IssuedBy(renewed, front_proxy_ca));
  CHECK(pki::ParseCertificate(renewed)->not_after >
        std::chrono::system_clock::now() + std::chrono::hours(24 * 300));

  // A client certificate whose key is gone is issued again.
  fs::remove(pki.front_proxy_client_key);
  REQUIRE(o.Complete());
  CHECK(pki::KeyMatches(*util::ReadFile(pki.front_proxy_client_cert),
                        *util::ReadFile(pki.front_proxy_client_key)));

  // Without the CA: a new CA and a new client certificate; the main CA is untouched.
  fs::remove(pki.front_proxy_ca_cert);
  fs::remove(pki.front_proxy_ca_key);
  REQUIRE(o.Complete());
  const std::string new_ca = *util::ReadFile(pki.front_proxy_ca_cert);
  CHECK(new_ca != front_proxy_ca);
  CHECK(pki::IssuedBy(*util::ReadFile(pki.front_proxy_client_cert), new_ca));
  CHECK(*util::ReadFile(pki.ca_cert) == ca);

  // Half a CA is an error, as for the main CA.
  fs::remove(pki.front_proxy_ca_key);
  auto half = o.Complete();
  REQUIRE_FALSE(half);
  CHECK(Contains(half.error(), "front-proxy-ca.key"));
}

TEST_CASE("Complete with --proxy-client-cert-file generates no front proxy") {
  TempDir tmp;
  auto ca = pki::GenerateCA("my-proxy-ca", std::chrono::hours(24 * 30));
  pki::CertRequest req;
  req.common_name = "my-proxy";
  req.client_auth = true;
  auto proxy = pki::GenerateSigned(*ca, req);
  REQUIRE(util::WriteFileAtomic(tmp.path + "/proxy.crt", proxy->cert_pem, 0644));
  REQUIRE(util::WriteFileAtomic(tmp.path + "/proxy.key", proxy->key_pem, 0600));
  REQUIRE(util::WriteFileAtomic(tmp.path + "/proxy-ca.crt", ca->cert_pem, 0644));
  options::Options o;
  o.embedded.data_dir = tmp.path + "/data";
  o.aggregator.proxy_client_cert_file = tmp.path + "/proxy.crt";
  o.aggregator.proxy_client_key_file = tmp.path + "/proxy.key";
  o.aggregator.enable_aggregator_routing = false;
  REQUIRE(o.Validate().empty());

  // Without --requestheader-client-ca-file, as upstream: no request-header authentication.
  auto plain = o.Complete();
  REQUIRE(plain);
  CHECK(plain->Pki().front_proxy_ca_cert.empty());
  CHECK_FALSE(fs::exists(tmp.path + "/data/pki/front-proxy-ca.crt"));
  CHECK_FALSE(fs::exists(tmp.path + "/data/pki/front-proxy-client.crt"));
  CHECK(plain->ProxyClientCertFile() == tmp.path + "/proxy.crt");
  CHECK(plain->ProxyClientKeyFile() == tmp.path + "/proxy.key");
  CHECK_FALSE(plain->Get().aggregator.enable_aggregator_routing);
  CHECK(plain->RequestHeaderCAFiles().empty());
  CHECK(plain->RequestHeaderCABundle().empty());
  CHECK(plain->Get().authentication.requestheader_username_headers.empty());
  CHECK(plain->Get().authentication.requestheader_allowed_names.empty());
  CHECK_FALSE(plain->GenericConfig().request_header);

  // With it: the flags as given, no defaults.
  o.authentication.requestheader_client_ca_file = tmp.path + "/proxy-ca.crt";
  o.authentication.requestheader_username_headers = {" X-Remote-User "};
  auto trusted = o.Complete();
  REQUIRE(trusted);
  CHECK(trusted->RequestHeaderCAFiles() == std::vector<std::string>{tmp.path + "/proxy-ca.crt"});
  CHECK(trusted->RequestHeaderCABundle() == ca->cert_pem);
  CHECK(trusted->Get().authentication.requestheader_username_headers ==
        std::vector<std::string>{"X-Remote-User"});
  CHECK(trusted->Get().authentication.requestheader_group_headers.empty());
  CHECK(trusted->Get().authentication.requestheader_allowed_names.empty());
  auto c = trusted->GenericConfig();
  CHECK(c.secure_serving.request_header_ca_files ==
        std::vector<std::string>{tmp.path + "/proxy-ca.crt"});
  REQUIRE(c.request_header);

  // A key that is not the certificate's.
  auto other = pki::GenerateSigned(*ca, req);
  REQUIRE(util::WriteFileAtomic(tmp.path + "/other.key", other->key_pem, 0600));
  o.aggregator.proxy_client_key_file = tmp.path + "/other.key";
  auto mismatch = o.Complete();
  REQUIRE_FALSE(mismatch);
  CHECK(Contains(mismatch.error(), "does not match --proxy-client-cert-file"));
  // A certificate file that holds none.
  o.aggregator.proxy_client_key_file = tmp.path + "/proxy.key";
  o.aggregator.proxy_client_cert_file = tmp.path + "/proxy.key";
  auto garbage = o.Complete();
  REQUIRE_FALSE(garbage);
  CHECK(Contains(garbage.error(), "--proxy-client-cert-file"));
}

TEST_CASE("Complete with a generated front proxy and --requestheader-client-ca-file trusts both") {
  TempDir tmp;
  auto ca = pki::GenerateCA("their-proxy-ca", std::chrono::hours(24 * 30));
  REQUIRE(util::WriteFileAtomic(tmp.path + "/their-ca.crt", ca->cert_pem, 0644));
  REQUIRE(util::WriteFileAtomic(tmp.path + "/garbage.crt", "not a certificate\n", 0644));
  options::Options o;
  o.embedded.data_dir = tmp.path + "/data";
  o.authentication.requestheader_client_ca_file = tmp.path + "/their-ca.crt";
  o.authentication.requestheader_group_headers = {"X-Groups"};
  auto done = o.Complete();
  REQUIRE(done);
  CHECK(done->RequestHeaderCAFiles() ==
        std::vector<std::string>{done->Pki().front_proxy_ca_cert, tmp.path + "/their-ca.crt"});
  CHECK(done->RequestHeaderCABundle() ==
        *util::ReadFile(done->Pki().front_proxy_ca_cert) + ca->cert_pem);
  const auto& authn = done->Get().authentication;
  // Other CAs' proxies may have other names: no default.
  CHECK(authn.requestheader_allowed_names.empty());
  CHECK(authn.requestheader_username_headers == std::vector<std::string>{"X-Remote-User"});
  CHECK(authn.requestheader_group_headers == std::vector<std::string>{"X-Groups"});

  o.authentication.requestheader_client_ca_file = tmp.path + "/garbage.crt";
  auto bad = o.Complete();
  REQUIRE_FALSE(bad);
  CHECK(Contains(bad.error(), "--requestheader-client-ca-file " + tmp.path + "/garbage.crt"));
}

TEST_CASE("the aggregation and request-header flags parse") {
  options::Options o;
  options::FlagSet fs("kube-apiserver");
  o.AddFlags(fs);
  auto errors =
      fs.Parse({"--enable-aggregator-routing=false", "--proxy-client-cert-file=/a",
                "--proxy-client-key-file=/b", "--requestheader-client-ca-file=/c",
                "--requestheader-allowed-names=p1,p2", "--requestheader-username-headers=X-U",
                "--requestheader-group-headers=X-G1", "--requestheader-group-headers=X-G2",
                "--requestheader-extra-headers-prefix=X-E-"});
  CHECK(errors.empty());
  CHECK_FALSE(o.aggregator.enable_aggregator_routing);
  CHECK(o.aggregator.proxy_client_cert_file == "/a");
  CHECK(o.aggregator.proxy_client_key_file == "/b");
  CHECK(o.authentication.requestheader_client_ca_file == "/c");
  CHECK(o.authentication.requestheader_allowed_names == std::vector<std::string>{"p1", "p2"});
  CHECK(o.authentication.requestheader_username_headers == std::vector<std::string>{"X-U"});
  CHECK(o.authentication.requestheader_group_headers == std::vector<std::string>{"X-G1", "X-G2"});
  CHECK(o.authentication.requestheader_extra_headers_prefix == std::vector<std::string>{"X-E-"});
  options::Options defaults;
  CHECK(defaults.aggregator.enable_aggregator_routing);
  // No --requestheader-uid-headers: upstream 1.32 accepts it only behind an alpha gate.
  CHECK_FALSE(fs.Parse({"--requestheader-uid-headers=X-Remote-Uid"}).empty());
}

TEST_CASE("service node port ranges: first-last and first+count") {
  CHECK(options::ParsePortRange("30000-32767") == std::pair{30000, 32767});
  CHECK(options::ParsePortRange("20000+100") == std::pair{20000, 20100});
  CHECK(!options::ParsePortRange("30000-70000"));
  CHECK(!options::ParsePortRange("a-b"));
}
