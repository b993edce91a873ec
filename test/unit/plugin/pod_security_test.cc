// The Pod Security Standards checks, against messages upstream's PodSecurity admission gave
// for real pods (as users quote them), and the level and version parsing.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "pkg/plugin/admission/pod_security/checks.h"
#include "pkg/plugin/admission/pod_security/levels.h"

using nlohmann::json;
using plugin::admission::pod_security::Check;
using plugin::admission::pod_security::Describe;
using plugin::admission::pod_security::Level;
using plugin::admission::pod_security::LevelVersion;
using plugin::admission::pod_security::ParseLevel;
using plugin::admission::pod_security::ParseVersion;

namespace {

std::string Violations(Level level, const json& spec, int minor = 0) {
  return Describe(Check(LevelVersion{level, minor}, json::object(), spec));
}

json Container(std::string name, json security = json::object(), json ports = json::array()) {
  json c = {{"name", std::move(name)}, {"image", "x"}};
  if (!security.empty()) c["securityContext"] = std::move(security);
  if (!ports.empty()) c["ports"] = std::move(ports);
  return c;
}

json HostPort(int port) { return {{"containerPort", port}, {"hostPort", port}}; }

}  // namespace

TEST_CASE("pod security: baseline, as upstream words a speaker daemon's refusal", "[podsecurity]") {
  const json caps = {{"capabilities", {{"add", {"NET_RAW", "SYS_ADMIN", "NET_ADMIN"}}}}};
  const json spec = {
      {"hostNetwork", true},
      {"containers",
       {Container("speaker", caps, {HostPort(7946), HostPort(7472)}), Container("frr", caps),
        Container("frr-metrics", json::object(), {HostPort(7473)})}}};
  CHECK(Violations(Level::kBaseline, spec) ==
        "non-default capabilities (containers \"speaker\", \"frr\" must not include "
        "\"NET_ADMIN\", \"NET_RAW\", \"SYS_ADMIN\" in securityContext.capabilities.add), host "
        "namespaces (hostNetwork=true), hostPort (containers \"speaker\", \"frr-metrics\" use "
        "hostPorts 7472, 7473, 7946)");
  CHECK(Violations(Level::kPrivileged, spec).empty());
}

TEST_CASE("pod security: restricted lists the baseline failures first", "[podsecurity]") {
  const json spec = {{"hostNetwork", true},
                     {"volumes",
                      {{{"name", "host-dev"}, {"hostPath", {{"path", "/dev"}}}},
                       {{"name", "host-etc"}, {"hostPath", {{"path", "/etc"}}}}}},
                     {"containers",
                      {Container("otel-collector", json::object(),
                                 {HostPort(4317), HostPort(14250), HostPort(9411)})}}};
  CHECK(Violations(Level::kRestricted, spec) ==
        "host namespaces (hostNetwork=true), hostPort (container \"otel-collector\" uses "
        "hostPorts 14250, 4317, 9411), allowPrivilegeEscalation != false (container "
        "\"otel-collector\" must set securityContext.allowPrivilegeEscalation=false), "
        "unrestricted capabilities (container \"otel-collector\" must set "
        "securityContext.capabilities.drop=[\"ALL\"]), restricted volume types (volumes "
        "\"host-dev\", \"host-etc\" use restricted volume type \"hostPath\"), runAsNonRoot != "
        "true (pod or container \"otel-collector\" must set securityContext.runAsNonRoot=true), "
        "seccompProfile (pod or container \"otel-collector\" must set "
        "securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")");
}

TEST_CASE("pod security: restricted capabilities, both halves", "[podsecurity]") {
  const json drop = {{"allowPrivilegeEscalation", false}, {"capabilities", {{"drop", {"ALL"}}}}};
  json adds = drop;
  adds["capabilities"] = {{"add", {"NET_ADMIN", "NET_BIND_SERVICE"}}};
  const json spec = {
      {"securityContext", {{"runAsNonRoot", true}, {"seccompProfile", {{"type", "Localhost"}}}}},
      {"containers", {Container("manager"), Container("siderolink", adds), Container("ok", drop)}}};
  CHECK(Violations(Level::kRestricted, spec) ==
        "allowPrivilegeEscalation != false (container \"manager\" must set "
        "securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (containers "
        "\"manager\", \"siderolink\" must set securityContext.capabilities.drop=[\"ALL\"]; "
        "container \"siderolink\" must not include \"NET_ADMIN\" in "
        "securityContext.capabilities.add)");
}

TEST_CASE("pod security: versions change what is checked", "[podsecurity]") {
  const json sysctls = {
      {"securityContext", {{"sysctls", {{{"name", "net.ipv4.tcp_rmem"}, {"value", "1"}}}}}},
      {"containers", {Container("app")}}};
  CHECK(Violations(Level::kBaseline, sysctls) == "");
  CHECK(Violations(Level::kBaseline, sysctls, 31) == "forbidden sysctls (net.ipv4.tcp_rmem)");
  const json root = {{"securityContext", {{"runAsUser", 0}}}, {"containers", {Container("app")}}};
  CHECK(Violations(Level::kRestricted, root).find("runAsUser=0 (pod must not set runAsUser=0)") !=
        std::string::npos);
  CHECK(Violations(Level::kRestricted, root, 22).find("runAsUser") == std::string::npos);
}

TEST_CASE("pod security: levels and versions", "[podsecurity]") {
  CHECK(ParseLevel("baseline") == Level::kBaseline);
  CHECK(ParseLevel("strict").error() == "must be one of privileged, baseline, restricted");
  CHECK(ParseVersion("latest") == 0);
  CHECK(ParseVersion("v1.30") == 30);
  CHECK(ParseVersion("v1.99") == 0);  // newer than the checks: latest
  CHECK_FALSE(ParseVersion("v2.0"));
  CHECK_FALSE(ParseVersion("v1.05"));
  CHECK(LevelVersion{Level::kRestricted, 0}.String() == "restricted:latest");
  CHECK(LevelVersion{Level::kBaseline, 28}.String() == "baseline:v1.28");
}
