// The conversion webhook client against a real HTTPS webhook on 127.0.0.1.
#include <utility>  // before Asio, see awaitable.h

#include <catch2/catch.hpp>

#include <chrono>
#include <future>
#include <regex>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <nlohmann/json.hpp>

#include "pkg/apiextensions/conversion/webhook.h"
#include "pkg/pki/pki.h"
#include "pkg/util/base64.h"
#include "test/unit/apiextensions/conversion/webhook_server.h"

namespace {

namespace net = boost::asio;
using json = nlohmann::json;
using apiextensions::conversion::ServiceResolver;
using apiextensions::conversion::WebhookConverter;
using conversion_test::Reply;
using conversion_test::WebhookServer;

using Result = std::expected<std::vector<json>, std::string>;

struct TestPki {
  pki::KeyPair ca;
  pki::KeyPair serving;  // webhook.test-ns.svc and 127.0.0.1, signed by ca
  pki::KeyPair other_ca;
};

const TestPki& Pki() {
  static const TestPki pki = [] {
    TestPki p;
    p.ca = *pki::GenerateCA("conversion-test-ca", std::chrono::hours(24));
    pki::CertRequest req;
    req.common_name = "webhook";
    req.dns_names = {"webhook.test-ns.svc"};
    req.ip_addresses = {"127.0.0.1"};
    req.server_auth = true;
    p.serving = *pki::GenerateSigned(p.ca, req);
    p.other_ca = *pki::GenerateCA("someone-else", std::chrono::hours(24));
    return p;
  }();
  return pki;
}

std::string Bundle(const pki::KeyPair& ca) { return util::Base64Encode(ca.cert_pem); }

json Crd(const json& client_config, const json& versions = json::array({"v1"})) {
  return json{{"apiVersion", "apiextensions.k8s.io/v1"},
              {"kind", "CustomResourceDefinition"},
              {"metadata", {{"name", "foos.example.com"}}},
              {"spec",
               {{"group", "example.com"},
                {"conversion",
                 {{"strategy", "Webhook"},
                  {"webhook",
                   {{"clientConfig", client_config}, {"conversionReviewVersions", versions}}}}}}}};
}

json UrlConfig(int port, const pki::KeyPair& ca, const std::string& path = "/convert") {
  return json{{"url", "https://127.0.0.1:" + std::to_string(port) + path},
              {"caBundle", Bundle(ca)}};
}

json Foo(const std::string& version, const std::string& name) {
  json spec =
      version == "v1" ? json{{"host", name + ".example"}} : json{{"hostname", name + ".example"}};
  return json{{"apiVersion", "example.com/" + version},
              {"kind", "Foo"},
              {"metadata",
               {{"name", name},
                {"namespace", "default"},
                {"uid", "uid-" + name},
                {"resourceVersion", "7"},
                {"labels", {{"app", name}}}}},
              {"spec", spec}};
}

std::shared_ptr<WebhookConverter> NewConverter(
    const json& crd, ServiceResolver resolve = nullptr,
    util::Duration timeout = apiextensions::conversion::kDefaultWebhookTimeout) {
  auto converter = WebhookConverter::New(crd, std::move(resolve), timeout);
  if (!converter) FAIL("New: " << converter.error());
  return *converter;
}

// Runs one conversion on an io_context with two threads, as the server's.
Result Run(const WebhookConverter& converter, std::vector<json> objects,
           const std::string& desired) {
  net::io_context io;
  auto future = net::co_spawn(io, converter.Convert(std::move(objects), desired), net::use_future);
  std::thread other([&io] { io.run(); });
  io.run();
  other.join();
  return future.get();
}

std::string Names(const std::vector<json>& objects) {
  std::string out;
  for (const json& o : objects)
    out += (out.empty() ? "" : ",") + o["metadata"]["name"].get<std::string>();
  return out;
}

std::string NamesOfReview(const json& review) {
  std::vector<json> objects = review["request"]["objects"];
  return Names(objects);
}

std::string UrlOf(int port, const std::string& rest = "/convert?timeout=30s") {
  return "https://127.0.0.1:" + std::to_string(port) + rest;
}

// A resolver answering with a fixed address and remembering what it was asked.
struct Asked {
  std::mutex mu;
  std::vector<std::string> calls;
};

Awaitable<std::expected<std::string, std::string>> FakeResolve(std::shared_ptr<Asked> asked,
                                                               std::string answer, std::string ns,
                                                               std::string name, int port) {
  {
    std::lock_guard lock(asked->mu);
    asked->calls.push_back(ns + "/" + name + ":" + std::to_string(port));
  }
  if (answer.starts_with("error:")) co_return std::unexpected(answer.substr(6));
  co_return answer;
}

ServiceResolver ResolverTo(std::shared_ptr<Asked> asked, std::string answer) {
  return [asked, answer](std::string ns, std::string name, int port) {
    return FakeResolve(asked, answer, std::move(ns), std::move(name), port);
  };
}

json ServiceConfig(const std::string& name, const pki::KeyPair& ca,
                   const json& extra = json::object()) {
  json service = {{"namespace", "test-ns"}, {"name", name}};
  service.update(extra);
  return json{{"service", service}, {"caBundle", Bundle(ca)}};
}

}  // namespace

TEST_CASE("a conversion webhook converts objects in one review, keeping their order",
          "[crd-conversion]") {
  WebhookServer server(Pki().serving, [](const json& review) {
    json answer = conversion_test::ConvertedReview(review);
    for (json& o : answer["response"]["convertedObjects"]) {
      o["metadata"]["labels"]["converted"] = "true";    // kept: labels may change
      o["metadata"]["resourceVersion"] = "999";         // restored from the original
      o["metadata"]["annotations"] = {{"note", "hi"}};  // kept
    }
    return conversion_test::JsonReply(answer);
  });
  auto converter = NewConverter(Crd(UrlConfig(server.port(), Pki().ca)));
  CHECK(converter->url() == UrlOf(server.port()));

  const Result r =
      Run(*converter, {Foo("v1", "a"), Foo("v2", "b"), Foo("v1", "c")}, "example.com/v2");
  REQUIRE(r.has_value());
  REQUIRE(r->size() == 3);
  CHECK(Names(*r) == "a,b,c");
  CHECK((*r)[0]["apiVersion"] == "example.com/v2");
  CHECK((*r)[0]["spec"] == json{{"hostname", "a.example"}});
  CHECK((*r)[0]["metadata"]["resourceVersion"] == "7");
  CHECK((*r)[0]["metadata"]["labels"] == json{{"app", "a"}, {"converted", "true"}});
  CHECK((*r)[0]["metadata"]["annotations"] == json{{"note", "hi"}});
  CHECK((*r)[0]["metadata"]["uid"] == "uid-a");
  CHECK((*r)[1] == Foo("v2", "b"));  // already there: untouched, not sent
  CHECK((*r)[2]["spec"] == json{{"hostname", "c.example"}});

  const auto seen = server.seen();
  REQUIRE(seen.size() == 1);
  const json& review = seen[0].review;
  CHECK(review["apiVersion"] == "apiextensions.k8s.io/v1");
  CHECK(review["kind"] == "ConversionReview");
  CHECK(review["request"]["desiredAPIVersion"] == "example.com/v2");
  CHECK(std::regex_match(
      review["request"]["uid"].get<std::string>(),
      std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")));
  CHECK(NamesOfReview(review) == "a,c");
  CHECK(review["request"]["objects"][0] == Foo("v1", "a"));
  CHECK(seen[0].target == "/convert?timeout=30s");
  CHECK(seen[0].host == "127.0.0.1:" + std::to_string(server.port()));
  CHECK(seen[0].sni.empty());  // an IP address is not sent as a server name
  CHECK(seen[0].content_type == "application/json");
  CHECK(seen[0].user_agent == "kube-apiserver-admission");

  // Each call is a review of its own.
  const Result again = Run(*converter, {Foo("v2", "d")}, "example.com/v1");
  REQUIRE(again.has_value());
  CHECK((*again)[0]["spec"] == json{{"host", "d.example"}});
  const auto seen2 = server.seen();
  REQUIRE(seen2.size() == 2);
  CHECK(seen2[1].review["request"]["uid"] != review["request"]["uid"]);
}

TEST_CASE("a conversion webhook is not called when nothing needs converting", "[crd-conversion]") {
  WebhookServer server(Pki().serving, conversion_test::RenameField);
  auto converter = NewConverter(Crd(UrlConfig(server.port(), Pki().ca)));
  const Result r = Run(*converter, {Foo("v2", "a"), Foo("v2", "b")}, "example.com/v2");
  REQUIRE(r.has_value());
  CHECK(*r == std::vector<json>{Foo("v2", "a"), Foo("v2", "b")});
  const Result none = Run(*converter, {}, "example.com/v2");
  REQUIRE(none.has_value());
  CHECK(none->empty());
  // A lone object with nothing but apiVersion and kind gets the new apiVersion without a call.
  const Result empty =
      Run(*converter, {json{{"apiVersion", "example.com/v1"}, {"kind", "Foo"}}}, "example.com/v2");
  REQUIRE(empty.has_value());
  CHECK((*empty)[0] == json{{"apiVersion", "example.com/v2"}, {"kind", "Foo"}});
  CHECK(server.seen().empty());
}

TEST_CASE("a service webhook is dialed where the resolver says, verified by its service name",
          "[crd-conversion]") {
  WebhookServer server(Pki().serving, conversion_test::RenameField);
  auto asked = std::make_shared<Asked>();
  const std::string where = "127.0.0.1:" + std::to_string(server.port());
  auto converter = NewConverter(Crd(ServiceConfig("webhook", Pki().ca, {{"path", "convert/v2/"}})),
                                ResolverTo(asked, where));
  CHECK(converter->url() == "https://webhook.test-ns.svc:443/convert/v2?timeout=30s");
  const Result r = Run(*converter, {Foo("v1", "a")}, "example.com/v2");
  REQUIRE(r.has_value());
  CHECK((*r)[0]["spec"] == json{{"hostname", "a.example"}});
  CHECK(asked->calls == std::vector<std::string>{"test-ns/webhook:443"});
  const auto seen = server.seen();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].sni == "webhook.test-ns.svc");
  CHECK(seen[0].host == "webhook.test-ns.svc:443");
  CHECK(seen[0].target == "/convert/v2?timeout=30s");

  SECTION("a port of the service is passed on") {
    auto on_port = NewConverter(Crd(ServiceConfig("webhook", Pki().ca, {{"port", 8443}})),
                                ResolverTo(asked, where));
    REQUIRE(Run(*on_port, {Foo("v1", "a")}, "example.com/v2").has_value());
    CHECK(asked->calls.back() == "test-ns/webhook:8443");
    CHECK(server.seen().back().host == "webhook.test-ns.svc:8443");
    CHECK(server.seen().back().target == "/?timeout=30s");
  }
  SECTION("a resolver error is the dial error") {
    auto failing = NewConverter(Crd(ServiceConfig("webhook", Pki().ca)),
                                ResolverTo(asked, "error:service \"webhook\" not found"));
    const Result e = Run(*failing, {Foo("v1", "a")}, "example.com/v2");
    REQUIRE_FALSE(e.has_value());
    CHECK(e.error() ==
          "conversion webhook for example.com/v1, Kind=Foo failed: Post "
          "\"https://webhook.test-ns.svc:443/?timeout=30s\": service \"webhook\" not found");
  }
  SECTION("a certificate for another name is refused") {
    auto other = NewConverter(Crd(ServiceConfig("other", Pki().ca)), ResolverTo(asked, where));
    const Result e = Run(*other, {Foo("v1", "a")}, "example.com/v2");
    REQUIRE_FALSE(e.has_value());
    CHECK(e.error() ==
          "conversion webhook for example.com/v1, Kind=Foo failed: Post "
          "\"https://other.test-ns.svc:443/?timeout=30s\": tls: failed to verify certificate: "
          "x509: certificate is valid for webhook.test-ns.svc, not other.test-ns.svc");
    CHECK(server.seen().size() == 1);  // nothing more reached the webhook
  }
}

TEST_CASE("a conversion webhook's certificate must chain to the caBundle", "[crd-conversion]") {
  WebhookServer server(Pki().serving, conversion_test::RenameField);
  auto converter = NewConverter(Crd(UrlConfig(server.port(), Pki().other_ca)));
  const Result r = Run(*converter, {Foo("v1", "a")}, "example.com/v2");
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == "conversion webhook for example.com/v1, Kind=Foo failed: Post \"" +
                         UrlOf(server.port()) +
                         "\": tls: failed to verify certificate: x509: certificate signed by "
                         "unknown authority");
  CHECK(server.seen().empty());
}

TEST_CASE("a conversion webhook URL's host name must be in the certificate", "[crd-conversion]") {
  WebhookServer server(Pki().serving, conversion_test::RenameField);
  // localhost resolves (to 127.0.0.1, where the webhook listens) but is not a name of its
  // certificate.
  const std::string url = "https://localhost:" + std::to_string(server.port()) + "/convert";
  auto converter = NewConverter(Crd(json{{"url", url}, {"caBundle", Bundle(Pki().ca)}}));
  const Result r = Run(*converter, {Foo("v1", "a")}, "example.com/v2");
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == "conversion webhook for example.com/v1, Kind=Foo failed: Post \"" + url +
                         "?timeout=30s\": tls: failed to verify certificate: x509: certificate "
                         "is valid for webhook.test-ns.svc, not localhost");
  CHECK(server.seen().empty());
}

TEST_CASE("an expired webhook certificate is refused", "[crd-conversion]") {
  pki::CertRequest req;
  req.common_name = "webhook";
  req.ip_addresses = {"127.0.0.1"};
  req.server_auth = true;
  req.validity = std::chrono::hours(-1);
  auto expired = pki::GenerateSigned(Pki().ca, req);
  REQUIRE(expired.has_value());
  WebhookServer server(*expired, conversion_test::RenameField);
  auto converter = NewConverter(Crd(UrlConfig(server.port(), Pki().ca)));
  const Result r = Run(*converter, {Foo("v1", "a")}, "example.com/v2");
  REQUIRE_FALSE(r.has_value());
  const std::string prefix = "conversion webhook for example.com/v1, Kind=Foo failed: Post \"" +
                             UrlOf(server.port()) +
                             "\": tls: failed to verify certificate: x509: certificate has "
                             "expired or is not yet valid: current time ";
  CHECK(r.error().starts_with(prefix));
  CHECK(std::regex_match(r.error().substr(prefix.size()),
                         std::regex("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ is after "
                                    "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ")));
  CHECK(server.seen().empty());
}

TEST_CASE("a conversion webhook's Failure answer is its message", "[crd-conversion]") {
  std::string message = "the v1 object is broken";
  WebhookServer server(Pki().serving, [&message](const json& review) {
    json answer = conversion_test::ConvertedReview(review);
    answer["response"]["result"] = {{"status", "Failure"}};
    if (!message.empty()) answer["response"]["result"]["message"] = message;
    answer["response"].erase("convertedObjects");
    return conversion_test::JsonReply(answer);
  });
  auto converter = NewConverter(Crd(UrlConfig(server.port(), Pki().ca)));
  Result r = Run(*converter, {Foo("v1", "a")}, "example.com/v2");
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() ==
        "conversion webhook for example.com/v1, Kind=Foo failed: the v1 object is broken");
  message.clear();
  r = Run(*converter, {Foo("v1", "a")}, "example.com/v2");
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() ==
        "conversion webhook for example.com/v1, Kind=Foo failed: "
        "response.result.status was 'Failure', not 'Success'");
}

TEST_CASE("a conversion webhook's answer is checked as upstream checks it", "[crd-conversion]") {
  std::function<void(json&)> tweak;
  WebhookServer server(Pki().serving, [&tweak](const json& review) {
    json answer = conversion_test::ConvertedReview(review);
    tweak(answer);
    return conversion_test::JsonReply(answer);
  });
  auto converter = NewConverter(Crd(UrlConfig(server.port(), Pki().ca)));
  const std::string gvk = "conversion webhook for example.com/v1, Kind=Foo";
  const auto run_list = [&] {
    return Run(*converter, {Foo("v1", "a"), Foo("v1", "c")}, "example.com/v2");
  };
  const auto run_one = [&] { return Run(*converter, {Foo("v1", "a")}, "example.com/v2"); };

  SECTION("the same uid") {
    tweak = [](json& a) { a["response"]["uid"] = "nope"; };
    const Result r = run_one();
    REQUIRE_FALSE(r.has_value());
    const std::string uid = server.seen().back().review["request"]["uid"];
    CHECK(r.error() == gvk + " failed: expected response.uid=\"" + uid + "\", got \"nope\"");
  }
  SECTION("as many objects as were sent") {
    tweak = [](json& a) { a["response"]["convertedObjects"].erase(1); };
    const Result r = run_list();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == gvk + " returned 1 objects, expected 2");
  }
  SECTION("the name kept") {
    tweak = [](json& a) {
      json& objects = a["response"]["convertedObjects"];
      objects[objects.size() - 1]["metadata"]["name"] = "x";
    };
    Result r = run_list();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() ==
          gvk + " returned invalid converted object at index 1: must have the same name: c != x");
    r = run_one();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == gvk + " returned invalid object: must have the same name: a != x");
  }
  SECTION("the namespace and uid kept") {
    tweak = [](json& a) { a["response"]["convertedObjects"][0]["metadata"]["uid"] = "u2"; };
    Result r = run_one();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == gvk + " returned invalid object: must have the same UID: uid-a != u2");
    tweak = [](json& a) { a["response"]["convertedObjects"][0]["metadata"].erase("namespace"); };
    r = run_one();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == gvk + " returned invalid object: must have the same namespace: default != ");
  }
  SECTION("the desired apiVersion") {
    tweak = [](json& a) { a["response"]["convertedObjects"][0]["apiVersion"] = "example.com/v1"; };
    Result r = run_list();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == gvk +
                           " returned invalid converted object at index 0: invalid groupVersion "
                           "(expected example.com/v2, received example.com/v1)");
    r = run_one();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == gvk +
                           " returned invalid object at index 0: invalid groupVersion (expected "
                           "example.com/v2, received example.com/v1)");
  }
  SECTION("the kind unchanged") {
    tweak = [](json& a) { a["response"]["convertedObjects"][1]["kind"] = "Bar"; };
    const Result r = run_list();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == gvk +
                           " returned invalid converted object at index 1: invalid kind (expected "
                           "Foo, received Bar)");
  }
  SECTION("labels that changed must be valid") {
    tweak = [](json& a) {
      a["response"]["convertedObjects"][0]["metadata"]["labels"] = {{"app", "not valid!"}};
    };
    const Result r = run_one();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().starts_with(gvk + " returned invalid metadata: metadata.labels: Invalid value: "
                                      "\"not valid!\": a valid label must be"));
  }
  SECTION("metadata must be there") {
    tweak = [](json& a) { a["response"]["convertedObjects"][1]["metadata"] = "x"; };
    const Result r = run_list();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() ==
          gvk + " returned invalid converted object at index 1: must have the same name: c != ");
  }
  SECTION("the answer must be a v1 ConversionReview") {
    tweak = [](json& a) { a.erase("apiVersion"); };
    const Result r = run_one();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == gvk +
                           " failed: expected webhook response of apiextensions.k8s.io/v1, "
                           "Kind=ConversionReview, got /, Kind=ConversionReview");
  }
  SECTION("labels and annotations may be dropped") {
    tweak = [](json& a) {
      for (json& o : a["response"]["convertedObjects"]) o["metadata"].erase("labels");
    };
    const Result r = run_list();
    REQUIRE(r.has_value());
    CHECK_FALSE((*r)[0]["metadata"].contains("labels"));
    CHECK((*r)[1]["metadata"]["resourceVersion"] == "7");
  }
}

TEST_CASE("a conversion webhook's HTTP errors read as client-go's", "[crd-conversion]") {
  Reply reply;
  WebhookServer server(Pki().serving, [&reply](const json&) { return reply; });
  auto converter = NewConverter(Crd(UrlConfig(server.port(), Pki().ca)));
  const std::string prefix = "conversion webhook for example.com/v1, Kind=Foo failed: ";
  const auto run = [&] { return Run(*converter, {Foo("v1", "a")}, "example.com/v2"); };

  reply = Reply{500, "text/plain", "boom\n"};
  Result r = run();
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == prefix +
                         "an error on the server (\"boom\") has prevented the request from "
                         "succeeding");
  reply = Reply{404, "application/json", "{}"};
  r = run();
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == prefix + "the server could not find the requested resource");
  reply = Reply{403, "application/json",
                R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"no way"})"};
  r = run();
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == prefix + "no way");
  reply = Reply{200, "text/html", "<html>hello</html>"};
  r = run();
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == prefix +
                         "couldn't get version/kind; json parse error: invalid character "
                         "'<' looking for beginning of value");
  reply = Reply{200, "", ""};
  r = run();
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == prefix +
                         "0-length response with status code: 200 and content type: "
                         "application/json");
}

TEST_CASE("an unreachable conversion webhook fails the conversion", "[crd-conversion]") {
  const int port = conversion_test::UnusedPort();
  auto converter = NewConverter(Crd(UrlConfig(port, Pki().ca)));
  const Result r = Run(*converter, {Foo("v1", "a")}, "example.com/v2");
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == "conversion webhook for example.com/v1, Kind=Foo failed: Post \"" +
                         UrlOf(port) + "\": dial tcp 127.0.0.1:" + std::to_string(port) +
                         ": connect: connection refused");
}

TEST_CASE("a conversion webhook that never answers times out", "[crd-conversion]") {
  WebhookServer server(Pki().serving, [](const json&) {
    Reply r;
    r.hang = true;
    return r;
  });
  auto converter = NewConverter(Crd(UrlConfig(server.port(), Pki().ca)), nullptr,
                                std::chrono::milliseconds(500));
  CHECK(converter->url() == UrlOf(server.port(), "/convert?timeout=500ms"));
  const auto start = std::chrono::steady_clock::now();
  const Result r = Run(*converter, {Foo("v1", "a")}, "example.com/v2");
  const auto took = std::chrono::steady_clock::now() - start;
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == "conversion webhook for example.com/v1, Kind=Foo failed: Post \"" +
                         UrlOf(server.port(), "/convert?timeout=500ms") +
                         "\": context deadline exceeded");
  CHECK(took >= std::chrono::milliseconds(450));
  CHECK(took < std::chrono::seconds(5));
  CHECK(server.seen().size() == 1);  // the request did arrive
}

TEST_CASE("conversion webhook settings are checked when the converter is built",
          "[crd-conversion]") {
  const auto error_of = [](const json& crd, ServiceResolver resolve = nullptr) {
    auto c = WebhookConverter::New(crd, std::move(resolve));
    return c ? std::string("ok") : c.error();
  };
  json none = Crd(UrlConfig(443, Pki().ca));
  none["spec"]["conversion"] = {{"strategy", "None"}};
  CHECK(error_of(none) ==
        "CustomResourceDefinition foos.example.com does not use a conversion webhook (strategy "
        "\"None\")");
  CHECK(error_of(Crd(UrlConfig(443, Pki().ca), json::array({"v1beta2"}))) ==
        "no supported conversion review versions");
  CHECK(error_of(Crd(UrlConfig(443, Pki().ca), json::array({"v1beta1"}))).find("only v1") !=
        std::string::npos);
  CHECK(error_of(Crd(UrlConfig(443, Pki().ca), json::array({"v1beta1", "v1"}))) == "ok");
  CHECK(error_of(Crd(json{{"url", "http://127.0.0.1/convert"}})).find("only https") !=
        std::string::npos);
  CHECK(error_of(Crd(json::object())) ==
        "failed calling webhook \"conversion_webhook_for_foos.example.com\": webhook "
        "configuration must have either service or URL");
  CHECK(error_of(Crd(ServiceConfig("webhook", Pki().ca))) ==
        "a service webhook needs a service resolver");
  CHECK(error_of(Crd(json{{"url", "https://127.0.0.1/"},
                          {"caBundle", util::Base64Encode("not a certificate")}})) ==
        "unable to load root certificates: unable to parse bytes as PEM block");
  // The default timeout is upstream's 30 s, without a port the URL stays as written.
  auto converter =
      WebhookConverter::New(Crd(json{{"url", "https://webhook.example.com"}}), nullptr);
  REQUIRE(converter.has_value());
  CHECK((*converter)->url() == "https://webhook.example.com/?timeout=30s");
}
