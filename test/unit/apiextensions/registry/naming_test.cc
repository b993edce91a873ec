#include "pkg/apiextensions/naming.h"

#include <catch2/catch.hpp>

#include "pkg/apiextensions/registry/custom_resource.h"
#include "pkg/apiextensions/serving.h"
#include "pkg/genericserver/endpoints/version_priority.h"

using nlohmann::json;

namespace {

json CRD(const std::string& group, const std::string& plural, const std::string& kind,
         json short_names = json::array()) {
  return {{"spec",
           {{"group", group},
            {"names",
             {{"plural", plural},
              {"singular", plural.substr(0, plural.size() - 1)},
              {"kind", kind},
              {"listKind", kind + "List"},
              {"shortNames", short_names}}}}}};
}

// A CRD whose requested names were all accepted.
json Accepted(json crd) {
  crd["status"]["acceptedNames"] = crd["spec"]["names"];
  return crd;
}

}  // namespace

TEST_CASE("a CRD alone in its group gets every name it asks for", "[crd-registry]") {
  json crd = CRD("example.com", "widgets", "Widget", {"wd"});
  auto r = apiextensions::AcceptNames(crd, {});
  CHECK(r.accepted);
  CHECK(r.reason == "NoConflicts");
  CHECK(r.message == "no conflicts found");
  CHECK(r.accepted_names == crd["spec"]["names"]);
}

TEST_CASE("names taken in the same group conflict, other groups do not", "[crd-registry]") {
  json other = Accepted(CRD("example.com", "gadgets", "Gadget", {"wd"}));
  json elsewhere = Accepted(CRD("other.com", "widgets", "Widget", {"wd"}));
  json crd = CRD("example.com", "widgets", "Widget", {"wd"});
  auto r = apiextensions::AcceptNames(crd, {&other, &elsewhere});
  CHECK_FALSE(r.accepted);
  CHECK(r.reason == "ShortNamesConflict");
  CHECK(r.message == "\"wd\" is already in use");
  CHECK(r.accepted_names["plural"] == "widgets");
  CHECK(r.accepted_names["kind"] == "Widget");
  CHECK_FALSE(r.accepted_names.contains("shortNames"));

  json same_kind = CRD("example.com", "things", "Gadget");
  auto k = apiextensions::AcceptNames(same_kind, {&other});
  // Kind and list kind both conflict: the last one checked is reported, as upstream.
  CHECK(k.reason == "ListKindConflict");
  CHECK(k.message == "\"GadgetList\" is already in use");
}

TEST_CASE("versions are ordered as Kubernetes orders them", "[crd-registry]") {
  std::vector<std::string> v = {"v1alpha1", "foo", "v1", "v2beta1", "v1beta2", "v2", "bar", "v10"};
  std::sort(v.begin(), v.end(), endpoints::VersionPriorityLess);
  CHECK(v == std::vector<std::string>{"v10", "v2", "v1", "v2beta1", "v1beta2", "v1alpha1", "bar",
                                      "foo"});
}
