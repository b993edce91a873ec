// The certificate controllers (pkg/controller/certificates) and their signing (pkg/pki
// sign_csr): each signer's rules with upstream's messages, the lifetime and validity of what
// it issues, the certificate itself (subject, SANs, usages, issuer, validity), the signer's
// decisions on requests, the cleaner's decisions, and the approver's recognition of node
// client requests against a fake SubjectAccessReview.
#include <catch2/catch.hpp>

#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <optional>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "pkg/controller/certificates/approver.h"
#include "pkg/controller/certificates/cleaner.h"
#include "pkg/controller/certificates/csr.h"
#include "pkg/controller/certificates/kubelet_csr.h"
#include "pkg/controller/certificates/signer.h"
#include "pkg/pki/pki.h"
#include "pkg/pki/sign_csr.h"
#include "pkg/util/base64.h"
#include "pkg/util/openssl.h"
#include "pkg/util/timestamp.h"

namespace asio = boost::asio;
namespace certs = controller::certificates;
using nlohmann::json;
using namespace std::chrono_literals;
using util::openssl::Bio;
using util::openssl::Cert;
using util::openssl::Pkey;

namespace {

struct Request {
  std::string cn;
  std::vector<std::string> orgs;
  std::string sans;  // OpenSSL's form: "DNS:a,IP:1.2.3.4,email:x@y,URI:spiffe://x"
  bool rsa = false;
};

// A PKCS#10 request as a client makes it, signed by a fresh key.
std::string MakeRequest(const Request& r) {
  Pkey key(r.rsa ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256"));
  REQUIRE(key);
  std::unique_ptr<X509_REQ, decltype(&X509_REQ_free)> req(X509_REQ_new(), X509_REQ_free);
  X509_REQ_set_pubkey(req.get(), key.get());
  X509_NAME* name = X509_REQ_get_subject_name(req.get());
  for (const std::string& o : r.orgs) {
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(o.c_str()), -1, -1, 0);
  }
  if (!r.cn.empty()) {
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(r.cn.c_str()), -1, -1, 0);
  }
  if (!r.sans.empty()) {
    STACK_OF(X509_EXTENSION)* exts = sk_X509_EXTENSION_new_null();
    X509_EXTENSION* san =
        X509V3_EXT_conf_nid(nullptr, nullptr, NID_subject_alt_name, r.sans.c_str());
    REQUIRE(san);
    sk_X509_EXTENSION_push(exts, san);
    X509_REQ_add_extensions(req.get(), exts);
    sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
  }
  REQUIRE(X509_REQ_sign(req.get(), key.get(), EVP_sha256()) > 0);
  Bio out(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509_REQ(out.get(), req.get());
  return util::openssl::BioString(out.get());
}

json CSR(const std::string& name, const std::string& signer, const std::string& request_pem,
         std::vector<std::string> usages, std::string username = "alice") {
  return {{"apiVersion", "certificates.k8s.io/v1"},
          {"kind", "CertificateSigningRequest"},
          {"metadata", {{"name", name}, {"creationTimestamp", "2026-01-01T00:00:00Z"}}},
          {"spec",
           {{"request", util::Base64Encode(request_pem)},
            {"signerName", signer},
            {"usages", usages},
            {"username", username},
            {"groups", {"system:authenticated"}}}}};
}

json Condition(const std::string& type, const std::string& updated,
               const std::string& status = "True") {
  return {{"type", type}, {"status", status}, {"lastUpdateTime", updated}};
}

void AddCondition(json& csr, json condition) {
  csr["status"]["conditions"].push_back(std::move(condition));
}

pki::CertificateRequestInfo Info(const Request& r) {
  auto info = pki::ParseCertificateRequest(MakeRequest(r));
  REQUIRE(info);
  return *info;
}

std::string Error(const certs::SignerCheck& check) { return check.error.value_or(""); }

Cert ReadCert(const std::string& pem) {
  Bio bio = util::openssl::MemoryBio(pem);
  return Cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

std::time_t Time(const ASN1_TIME* t) {
  std::tm tm{};
  ASN1_TIME_to_tm(t, &tm);
  return timegm(&tm);
}

std::time_t Seconds(certs::SystemTime t) { return std::chrono::system_clock::to_time_t(t); }

bool Critical(X509* cert, int nid) {
  int at = X509_get_ext_by_NID(cert, nid, -1);
  return at >= 0 && X509_EXTENSION_get_critical(X509_get_ext(cert, at)) == 1;
}

const std::vector<std::string> kNodeClientUsages = {"digital signature", "key encipherment",
                                                    "client auth"};

}  // namespace

TEST_CASE("csr signers: each signer's rules with upstream's messages",
          "[controller][certificates]") {
  const Request node_client{"system:node:n1", {"system:nodes"}, ""};
  const std::string client_kubelet = certs::kKubeAPIServerClientKubeletSignerName;
  const std::string serving = certs::kKubeletServingSignerName;
  const std::string client = certs::kKubeAPIServerClientSignerName;
  const std::string legacy = certs::kLegacyUnknownSignerName;

  // A signer only recognizes requests for itself.
  certs::SignerCheck other =
      certs::CheckRequestForSigner(client, "example.com/mine", Info(node_client), {"client auth"});
  CHECK_FALSE(other.recognized);
  CHECK_FALSE(other.error);

  // kube-apiserver-client-kubelet: the kubelet client rules.
  auto kubelet_client = [&](const Request& r, std::vector<std::string> usages) {
    certs::SignerCheck c =
        certs::CheckRequestForSigner(client_kubelet, client_kubelet, Info(r), std::move(usages));
    CHECK(c.recognized);
    return Error(c);
  };
  CHECK(kubelet_client(node_client, kNodeClientUsages).empty());
  CHECK(kubelet_client(node_client, {"digital signature", "client auth"}).empty());
  CHECK(kubelet_client({"system:node:n1", {"system:masters"}, ""}, kNodeClientUsages) ==
        "subject organization is not system:nodes");
  CHECK(kubelet_client({"system:node:n1", {"system:nodes", "extra"}, ""}, kNodeClientUsages) ==
        "subject organization is not system:nodes");
  CHECK(kubelet_client({"system:node:n1", {"system:nodes"}, "DNS:n1"}, kNodeClientUsages) ==
        "DNS subjectAltNames are not allowed");
  CHECK(kubelet_client({"system:node:n1", {"system:nodes"}, "email:a@b"}, kNodeClientUsages) ==
        "Email subjectAltNames are not allowed");
  CHECK(kubelet_client({"system:node:n1", {"system:nodes"}, "IP:10.0.0.1"}, kNodeClientUsages) ==
        "IP subjectAltNames are not allowed");
  CHECK(kubelet_client({"system:node:n1", {"system:nodes"}, "URI:spiffe://x"}, kNodeClientUsages) ==
        "URI subjectAltNames are not allowed");
  CHECK(kubelet_client({"n1", {"system:nodes"}, ""}, kNodeClientUsages) ==
        "subject common name does not begin with system:node:");
  CHECK(kubelet_client(node_client, {"client auth"}) ==
        "usages did not match [client auth digital signature key encipherment]");
  CHECK(kubelet_client(node_client, {"digital signature", "client auth", "server auth"}) ==
        "usages did not match [client auth digital signature key encipherment]");

  // kubelet-serving: a DNS or IP name is required, the usages are the server's.
  auto kubelet_serving = [&](const Request& r, std::vector<std::string> usages) {
    return Error(certs::CheckRequestForSigner(serving, serving, Info(r), std::move(usages)));
  };
  const std::vector<std::string> serving_usages = {"digital signature", "key encipherment",
                                                   "server auth"};
  CHECK(kubelet_serving({"system:node:n1", {"system:nodes"}, "DNS:n1,IP:10.0.0.1"}, serving_usages)
            .empty());
  CHECK(kubelet_serving({"system:node:n1", {"system:nodes"}, "IP:10.0.0.1"},
                        {"digital signature", "server auth"})
            .empty());
  CHECK(kubelet_serving(node_client, serving_usages) == "DNS or IP subjectAltName is required");
  CHECK(kubelet_serving({"system:node:n1", {"system:nodes"}, "DNS:n1,email:a@b"}, serving_usages) ==
        "Email subjectAltNames are not allowed");
  CHECK(kubelet_serving({"system:node:n1", {"system:nodes"}, "DNS:n1,URI:spiffe://x"},
                        serving_usages) == "URI subjectAltNames are not allowed");
  CHECK(kubelet_serving({"system:node:n1", {"system:nodes"}, "DNS:n1"}, kNodeClientUsages) ==
        "usages did not match [digital signature key encipherment server auth]");
  CHECK(kubelet_serving({"n1", {"system:nodes"}, "DNS:n1"}, serving_usages) ==
        "subject common name does not begin with system:node:");
  CHECK(kubelet_serving({"system:node:n1", {}, "DNS:n1"}, serving_usages) ==
        "subject organization is not system:nodes");

  // kube-apiserver-client: any subject, client usages only, client auth required.
  auto apiserver_client = [&](std::vector<std::string> usages) {
    return Error(certs::CheckRequestForSigner(
        client, client, Info({"jane", {"devs"}, "DNS:anything"}), std::move(usages)));
  };
  CHECK(apiserver_client({"client auth"}).empty());
  CHECK(apiserver_client({"digital signature", "key encipherment", "client auth"}).empty());
  CHECK(apiserver_client({"client auth", "server auth"}) ==
        "invalid usage for client certificate: server auth");
  CHECK(apiserver_client({"digital signature"}) ==
        "missing required usage for client certificate: client auth");

  // legacy-unknown: anything goes.
  certs::SignerCheck anything = certs::CheckRequestForSigner(
      legacy, legacy, Info({"x", {}, "DNS:a"}), {"server auth", "code signing"});
  CHECK(anything.recognized);
  CHECK_FALSE(anything.error);
}

TEST_CASE("csr signers: lifetime and validity as upstream's signing policy",
          "[controller][certificates]") {
  // The smaller of the flag and spec.expirationSeconds, never below 10 minutes.
  CHECK(certs::CertificateDuration(8760h, std::nullopt) == 8760h);
  CHECK(certs::CertificateDuration(8760h, 3600) == 1h);
  CHECK(certs::CertificateDuration(1h, 7200) == 1h);
  CHECK(certs::CertificateDuration(8760h, 60) == 10min);

  const auto now = std::chrono::system_clock::from_time_t(1'800'000'000);
  const auto far = now + 10 * 8760h;
  // Short-lived (< 8 h): NotAfter is now + TTL; NotBefore 5 minutes back.
  auto short_lived = certs::CertificateValidity(now, std::chrono::seconds(1h), far);
  REQUIRE(short_lived);
  CHECK(short_lived->not_before == now - 5min);
  CHECK(short_lived->not_after == now + 1h);
  // Long-lived: the backdate comes off the end too.
  auto year = certs::CertificateValidity(now, std::chrono::seconds(8760h), far);
  REQUIRE(year);
  CHECK(year->not_after == now + 8760h - 5min);
  // Never past the signer's expiry.
  auto capped = certs::CertificateValidity(now, std::chrono::seconds(8760h), now + 2h);
  REQUIRE(capped);
  CHECK(capped->not_after == now + 2h);
  // An expired signer refuses.
  auto expired = certs::CertificateValidity(now, std::chrono::seconds(1h), now - 1h);
  REQUIRE_FALSE(expired);
  CHECK(expired.error().starts_with("the signer has expired: NotAfter="));
  auto just = certs::CertificateValidity(now, std::chrono::seconds(1h), now - 1min);
  REQUIRE_FALSE(just);
  CHECK(just.error().starts_with("refusing to sign a certificate that expired in the past"));
}

TEST_CASE("csr signing: the certificate carries the request's subject and names and the usages",
          "[controller][certificates]") {
  auto ca = pki::GenerateCA("test-ca", 24h * 365);
  REQUIRE(ca);
  const std::string request =
      MakeRequest({"system:node:n1", {"system:nodes"}, "DNS:n1.example,IP:10.0.0.7"});
  pki::SigningPolicy policy;
  policy.usages = {"digital signature", "key encipherment", "server auth", "client auth"};
  const auto now = std::chrono::system_clock::from_time_t(std::time(nullptr));
  policy.not_before = now - 5min;
  policy.not_after = now + 2h;
  auto pem = pki::SignCertificateRequest(*ca, request, policy);
  REQUIRE(pem);
  CHECK(pem->starts_with("-----BEGIN CERTIFICATE-----\n"));
  CHECK(pki::IssuedBy(*pem, ca->cert_pem));
  auto info = pki::ParseCertificate(*pem);
  REQUIRE(info);
  CHECK(info->common_name == "system:node:n1");
  CHECK(info->organizations == std::vector<std::string>{"system:nodes"});
  CHECK(info->dns_names == std::vector<std::string>{"n1.example"});
  CHECK(info->ip_addresses == std::vector<std::string>{"10.0.0.7"});
  CHECK_FALSE(info->is_ca);

  Cert cert = ReadCert(*pem);
  REQUIRE(cert);
  CHECK(X509_get_key_usage(cert.get()) == (KU_DIGITAL_SIGNATURE | KU_KEY_ENCIPHERMENT));
  CHECK(X509_get_extended_key_usage(cert.get()) == (XKU_SSL_SERVER | XKU_SSL_CLIENT));
  CHECK(Critical(cert.get(), NID_key_usage));
  CHECK(Critical(cert.get(), NID_basic_constraints));
  CHECK_FALSE(Critical(cert.get(), NID_subject_alt_name));
  CHECK(X509_get_ext_by_NID(cert.get(), NID_authority_key_identifier, -1) >= 0);
  CHECK(Time(X509_get0_notBefore(cert.get())) == Seconds(now - 5min));
  CHECK(Time(X509_get0_notAfter(cert.get())) == Seconds(now + 2h));
  X509_NAME* issuer = X509_get_issuer_name(cert.get());
  char cn[64] = {0};
  X509_NAME_get_text_by_NID(issuer, NID_commonName, cn, sizeof cn);
  CHECK(std::string(cn) == "test-ca");
  CHECK(X509_get_version(cert.get()) == X509_VERSION_3);

  // Only client auth: no key usage extension at all (Go writes none for 0).
  policy.usages = {"client auth"};
  auto client_only = pki::SignCertificateRequest(*ca, MakeRequest({"jane", {}, ""}), policy);
  REQUIRE(client_only);
  Cert c = ReadCert(*client_only);
  CHECK(X509_get_ext_by_NID(c.get(), NID_key_usage, -1) < 0);
  CHECK(X509_get_extended_key_usage(c.get()) == XKU_SSL_CLIENT);
  // An RSA request is signed the same way.
  auto rsa = pki::SignCertificateRequest(*ca, MakeRequest({"rsa-user", {}, "", true}), policy);
  REQUIRE(rsa);
  CHECK(pki::IssuedBy(*rsa, ca->cert_pem));

  // Unknown usages, tampered requests and other PEM blocks are refused.
  policy.usages = {"client auth", "frobnicate"};
  auto unknown = pki::SignCertificateRequest(*ca, request, policy);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error() == "unrecognized usage values: [\"frobnicate\"]");
  CHECK(pki::ParseCertificateRequest(ca->cert_pem).error() ==
        "PEM block type must be CERTIFICATE REQUEST");
  CHECK(pki::ParseCertificateRequest("garbage").error() ==
        "PEM block type must be CERTIFICATE REQUEST");
  CHECK(pki::CheckRequestSignature(request));
}

TEST_CASE("csr signing: what the signer does with a request", "[controller][certificates]") {
  auto ca = pki::GenerateCA("cluster-ca", 24h * 365);
  REQUIRE(ca);
  auto signer =
      certs::Signer::New(certs::kKubeAPIServerClientSignerName, *ca, std::chrono::seconds(8760h));
  REQUIRE(signer);
  const auto now = std::chrono::system_clock::from_time_t(std::time(nullptr));
  json csr = CSR("jane", certs::kKubeAPIServerClientSignerName, MakeRequest({"jane", {"devs"}, ""}),
                 {"client auth"});

  // Pending: nothing yet.
  auto pending = signer->Decide(csr, now);
  REQUIRE(pending);
  CHECK(pending->action == certs::SignDecision::kNothing);
  // Approved: a certificate for a year (less the backdate), or expirationSeconds.
  AddCondition(csr, Condition("Approved", "2026-01-01T00:00:00Z"));
  csr["spec"]["expirationSeconds"] = 3600;
  auto issued = signer->Decide(csr, now);
  REQUIRE(issued);
  REQUIRE(issued->action == certs::SignDecision::kIssue);
  auto info = pki::ParseCertificate(issued->certificate);
  REQUIRE(info);
  CHECK(info->common_name == "jane");
  CHECK(info->organizations == std::vector<std::string>{"devs"});
  CHECK(Seconds(info->not_after) == Seconds(now + 1h));
  // Another signer's request is left alone.
  auto other = certs::Signer::New(certs::kKubeletServingSignerName, *ca, std::chrono::seconds(1h));
  REQUIRE(other);
  CHECK(other->Decide(csr, now)->action == certs::SignDecision::kNothing);
  // A forbidden usage fails the request with the signer's reason.
  json bad = CSR("bad", certs::kKubeAPIServerClientSignerName, MakeRequest({"x", {}, ""}),
                 {"server auth"});
  AddCondition(bad, Condition("Approved", "2026-01-01T00:00:00Z"));
  auto failed = signer->Decide(bad, now);
  REQUIRE(failed);
  CHECK(failed->action == certs::SignDecision::kFail);
  CHECK(failed->message == "invalid usage for client certificate: server auth");
  // Once failed, or denied as well, nothing more happens.
  json failed_csr = bad;
  AddCondition(failed_csr, Condition("Failed", "2026-01-01T00:00:00Z"));
  CHECK(signer->Decide(failed_csr, now)->action == certs::SignDecision::kNothing);
  json denied = csr;
  AddCondition(denied, Condition("Denied", "2026-01-01T00:00:00Z"));
  CHECK(signer->Decide(denied, now)->action == certs::SignDecision::kNothing);
  // A request that does not parse is an error to retry.
  json garbage = csr;
  garbage["spec"]["request"] = util::Base64Encode("not a request");
  auto error = signer->Decide(garbage, now);
  REQUIRE_FALSE(error);
  CHECK(error.error() ==
        "unable to parse csr \"jane\": PEM block type must be CERTIFICATE REQUEST");

  // A CA whose key is not its certificate's does not make a signer.
  auto another = pki::GenerateCA("other", 1h);
  REQUIRE(another);
  auto mismatched = certs::Signer::New(certs::kKubeAPIServerClientSignerName,
                                       pki::KeyPair{ca->cert_pem, another->key_pem}, 1h);
  REQUIRE_FALSE(mismatched);
  CHECK(mismatched.error() == "tls: private key does not match public key");
  CHECK(certs::Signer::New("example.com/foo", *ca, 1h).error() ==
        "unrecognized signerName: \"example.com/foo\"");
}

TEST_CASE("csr cleaner: which requests go, and when", "[controller][certificates]") {
  const auto now = *util::ParseTime("2026-06-01T12:00:00Z");
  auto ca = pki::GenerateCA("ca", 24h);
  REQUIRE(ca);
  const std::string cert_b64 = util::Base64Encode(ca->cert_pem);  // valid for a day from now
  json csr =
      CSR("c", certs::kKubeAPIServerClientSignerName, MakeRequest({"c", {}, ""}), {"client auth"});
  csr["metadata"]["creationTimestamp"] = "2026-06-01T00:00:00Z";

  // Pending for 12 h: stays; for more than 24 h: goes.
  CHECK_FALSE(certs::CleanReason(csr, now));
  json old = csr;
  old["metadata"]["creationTimestamp"] = "2026-05-31T11:59:00Z";
  CHECK(certs::CleanReason(old, now) ==
        "\"Cleaning CSR as it is more than pendingExpiration duration old and unhandled.\" "
        "csr=\"c\" pendingExpiration=\"24h0m0s\"");

  // Approved, not issued: stays however old the approval (and pending no more).
  json approved = old;
  AddCondition(approved, Condition("Approved", "2026-06-01T10:00:00Z"));
  CHECK_FALSE(certs::CleanReason(approved, now));
  // Approved and issued: goes an hour after the approval.
  json issued = approved;
  issued["status"]["certificate"] = cert_b64;
  CHECK(certs::CleanReason(issued, now) ==
        "\"Cleaning CSR as it is more than approvedExpiration duration old and approved.\" "
        "csr=\"c\" approvedExpiration=\"1h0m0s\"");
  json recent = csr;
  AddCondition(recent, Condition("Approved", "2026-06-01T11:30:00Z"));
  recent["status"]["certificate"] = cert_b64;
  CHECK_FALSE(certs::CleanReason(recent, now));

  // Denied or failed: an hour after the condition.
  json denied = csr;
  AddCondition(denied, Condition("Denied", "2026-06-01T10:59:59Z"));
  CHECK(certs::CleanReason(denied, now) ==
        "\"Cleaning CSR as it is more than deniedExpiration duration old and denied.\" csr=\"c\" "
        "deniedExpiration=\"1h0m0s\"");
  json denied_now = csr;
  AddCondition(denied_now, Condition("Denied", "2026-06-01T11:00:01Z"));
  CHECK_FALSE(certs::CleanReason(denied_now, now));
  json failed = csr;
  AddCondition(failed, Condition("Approved", "2026-06-01T11:59:00Z"));
  AddCondition(failed, Condition("Failed", "2026-06-01T10:00:00Z"));
  CHECK(certs::CleanReason(failed, now) ==
        "\"Cleaning CSR as it is more than deniedExpiration duration old and failed.\" csr=\"c\" "
        "deniedExpiration=\"1h0m0s\"");
  // A condition without a time never counts as old.
  json untimed = csr;
  AddCondition(untimed, json{{"type", "Denied"}, {"status", "True"}});
  CHECK_FALSE(certs::CleanReason(untimed, now));

  // Approved with a certificate that has expired: goes at once.
  auto issued_info = pki::ParseCertificate(ca->cert_pem);
  REQUIRE(issued_info);
  const auto later = issued_info->not_after + 1h;
  json expired = recent;
  CHECK(certs::CleanReason(expired, later) ==
        "\"Cleaning CSR as it is more than approvedExpiration duration old and approved.\" "
        "csr=\"c\" approvedExpiration=\"1h0m0s\"");
  expired["status"]["conditions"][0]["lastUpdateTime"] =
      util::FormatTime(later - 10min);  // approval recent, certificate gone stale
  CHECK(certs::CleanReason(expired, later) ==
        "\"Cleaning CSR as the associated certificate is expired.\" csr=\"c\"");
  CHECK_FALSE(certs::CleanReason(expired, issued_info->not_after - 1min));
}

namespace {

// Runs the approver's decision with a fake SubjectAccessReview that allows what `allowed`
// names and records what it was asked.
struct FakeReviews {
  explicit FakeReviews(std::set<std::string> allow = {}) : allowed(std::move(allow)) {}
  std::set<std::string> allowed;  // subresources
  std::vector<json> asked;
  std::expected<certs::ApprovalDecision, certs::HandleError> Decide(const json& csr) {
    asio::io_context io;
    std::optional<std::expected<certs::ApprovalDecision, certs::HandleError>> out;
    certs::Authorize authorize = [this](json review) { return Answer(this, std::move(review)); };
    asio::co_spawn(
        io,
        [&]() -> Awaitable<void> {
          auto decision = co_await certs::DecideApproval(csr, authorize);
          out = std::move(decision);
        },
        [](std::exception_ptr e) {
          if (e) std::rethrow_exception(e);
        });
    io.run();
    REQUIRE(out.has_value());
    return *out;
  }
  static Awaitable<std::expected<bool, std::string>> Answer(FakeReviews* self, json review) {
    self->asked.push_back(review);
    const std::string sub = review["spec"]["resourceAttributes"]["subresource"];
    co_return self->allowed.contains(sub);
  }
};

}  // namespace

TEST_CASE("csr approver: node client requests, approved after a SubjectAccessReview",
          "[controller][certificates]") {
  const std::string kubelet_signer = certs::kKubeAPIServerClientKubeletSignerName;
  const std::string node_request = MakeRequest({"system:node:n1", {"system:nodes"}, ""});

  // The node itself asks: selfnodeclient first, as the requester.
  json self = CSR("self", kubelet_signer, node_request, kNodeClientUsages, "system:node:n1");
  self["spec"]["uid"] = "u-1";
  self["spec"]["extra"] = {{"scopes", {"a"}}};
  FakeReviews reviews{{"selfnodeclient"}};
  auto approved = reviews.Decide(self);
  REQUIRE(approved);
  CHECK(approved->approve);
  CHECK(approved->message ==
        "Auto approving self kubelet client certificate after SubjectAccessReview.");
  REQUIRE(reviews.asked.size() == 1);
  CHECK(reviews.asked[0] ==
        json::parse(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",
          "spec":{"user":"system:node:n1","uid":"u-1","groups":["system:authenticated"],
            "extra":{"scopes":["a"]},
            "resourceAttributes":{"group":"certificates.k8s.io",
              "resource":"certificatesigningrequests","verb":"create",
              "subresource":"selfnodeclient"}}})"));

  // Not allowed as self, allowed nodeclient: the second recognizer approves.
  FakeReviews only_nodeclient{{"nodeclient"}};
  auto second = only_nodeclient.Decide(self);
  REQUIRE(second);
  CHECK(second->approve);
  CHECK(second->message == "Auto approving kubelet client certificate after SubjectAccessReview.");
  CHECK(only_nodeclient.asked.size() == 2);

  // Someone else (a bootstrap token) asks for the node: nodeclient only.
  json bootstrap =
      CSR("boot", kubelet_signer, node_request, kNodeClientUsages, "system:bootstrap:abcdef");
  FakeReviews none;
  auto refused = none.Decide(bootstrap);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().ignorable);
  CHECK(refused.error().message ==
        "recognized csr \"boot\" as [nodeclient] but subject access review was not approved");
  REQUIRE(none.asked.size() == 1);
  CHECK(none.asked[0]["spec"]["resourceAttributes"]["subresource"] == "nodeclient");
  auto refused_self = FakeReviews{}.Decide(self);
  REQUIRE_FALSE(refused_self);
  CHECK(refused_self.error().message ==
        "recognized csr \"self\" as [selfnodeclient nodeclient] but subject access review was not "
        "approved");

  // Not node client requests: nothing asked, nothing done.
  FakeReviews all{{"selfnodeclient", "nodeclient"}};
  auto not_ours = [&](const json& csr) {
    auto d = all.Decide(csr);
    REQUIRE(d);
    CHECK_FALSE(d->approve);
  };
  not_ours(CSR("other-signer", certs::kKubeAPIServerClientSignerName, node_request,
               kNodeClientUsages, "system:node:n1"));
  not_ours(CSR("serving-usages", kubelet_signer, node_request, {"digital signature", "server auth"},
               "system:node:n1"));
  not_ours(CSR("wrong-org", kubelet_signer, MakeRequest({"system:node:n1", {"devs"}, ""}),
               kNodeClientUsages, "system:node:n1"));
  not_ours(CSR("with-dns", kubelet_signer,
               MakeRequest({"system:node:n1", {"system:nodes"}, "DNS:n1"}), kNodeClientUsages,
               "system:node:n1"));
  CHECK(all.asked.empty());
  // Already approved or denied: left alone.
  json done = self;
  AddCondition(done, Condition("Denied", "2026-01-01T00:00:00Z"));
  not_ours(done);
  CHECK(all.asked.empty());
  // The recognizers on their own.
  auto info = pki::ParseCertificateRequest(node_request);
  REQUIRE(info);
  CHECK(certs::Recognizes(certs::Recognizers()[0], self, *info));
  CHECK_FALSE(certs::Recognizes(certs::Recognizers()[0], bootstrap, *info));
  CHECK(certs::Recognizes(certs::Recognizers()[1], bootstrap, *info));
}
