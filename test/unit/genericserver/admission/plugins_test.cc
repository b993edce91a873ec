// The admission plugin list: upstream 1.32's names, order and defaults.
#include <catch2/catch.hpp>

#include "pkg/genericserver/admission/plugins.h"

using admission::EnabledPlugins;

TEST_CASE("admission plugins: upstream's defaults, in upstream's order", "[admission]") {
  auto on = EnabledPlugins({}, {});
  REQUIRE(on);
  CHECK(*on == std::vector<std::string>{"NamespaceLifecycle",
                                        "LimitRanger",
                                        "ServiceAccount",
                                        "TaintNodesByCondition",
                                        "PodSecurity",
                                        "Priority",
                                        "DefaultTolerationSeconds",
                                        "DefaultStorageClass",
                                        "StorageObjectInUseProtection",
                                        "PersistentVolumeClaimResize",
                                        "RuntimeClass",
                                        "CertificateApproval",
                                        "CertificateSigning",
                                        "ClusterTrustBundleAttest",
                                        "CertificateSubjectRestriction",
                                        "DefaultIngressClass",
                                        "MutatingAdmissionPolicy",
                                        "MutatingAdmissionWebhook",
                                        "ValidatingAdmissionPolicy",
                                        "ValidatingAdmissionWebhook",
                                        "ResourceQuota"});
  CHECK(admission::AllOrderedPlugins().size() == 35);
  CHECK(admission::AllOrderedPlugins().front() == "AlwaysAdmit");
  CHECK(admission::AllOrderedPlugins().back() == "AlwaysDeny");
}

TEST_CASE("admission plugins: enabled and disabled whatever the order given", "[admission]") {
  auto on = EnabledPlugins({"AlwaysPullImages", "NamespaceExists"},
                           {"ResourceQuota", "ServiceAccount", "PodSecurity"});
  REQUIRE(on);
  CHECK((*on)[0] == "NamespaceLifecycle");
  CHECK((*on)[1] == "NamespaceExists");
  CHECK((*on)[2] == "LimitRanger");
  CHECK((*on)[3] == "TaintNodesByCondition");
  CHECK((*on)[4] == "AlwaysPullImages");
  CHECK(std::ranges::find(*on, "ResourceQuota") == on->end());
  CHECK(on->back() == "ValidatingAdmissionWebhook");
}

TEST_CASE("admission plugins: unknown and overlapping names are errors", "[admission]") {
  auto bad =
      EnabledPlugins({"Bogus", "Priority", "AlwaysDeny"}, {"Nope", "AlwaysDeny", "Priority"});
  REQUIRE_FALSE(bad);
  CHECK(bad.error() ==
        std::vector<std::string>{"enable-admission-plugins plugin \"Bogus\" is unknown",
                                 "disable-admission-plugins plugin \"Nope\" is unknown",
                                 "[AlwaysDeny Priority] in enable-admission-plugins and "
                                 "disable-admission-plugins overlapped"});
}
