// `--controllers` (pkg/controllermanager): upstream 1.32's controller names and aliases,
// validation with upstream's messages (every error at once), and IsControllerEnabled.
#include <catch2/catch.hpp>

#include <algorithm>

#include "pkg/controllermanager/controller_names.h"
#include "pkg/controllermanager/controllers_flag.h"

using namespace controllermanager;

TEST_CASE("controllers: upstream 1.32's names, sorted, with the disabled-by-default ones",
          "[controllermanager]") {
  const auto known = KnownControllers();
  CHECK(known.size() == 48);
  CHECK(std::is_sorted(known.begin(), known.end()));
  CHECK(std::adjacent_find(known.begin(), known.end()) == known.end());
  for (const auto& name : known) {
    INFO(name);
    CHECK(name.ends_with("-controller"));
  }
  CHECK(known.front() == "bootstrap-signer-controller");
  CHECK(ControllersDisabledByDefault() == std::vector<std::string>{"bootstrap-signer-controller",
                                                                   "selinux-warning-controller",
                                                                   "token-cleaner-controller"});
  // The first registered is the one started before the others.
  CHECK(ControllerNames().front().name == kServiceAccountTokenController);
  CHECK(ControllerNames().front().special_handling);
  // No alias is also a canonical name, and each alias maps to one controller.
  for (const auto& [alias, name] : ControllerAliases()) {
    INFO(alias);
    CHECK(std::find(known.begin(), known.end(), alias) == known.end());
    CHECK(std::find(known.begin(), known.end(), name) != known.end());
  }
  CHECK(ControllerAliases().at("garbagecollector") == "garbage-collector-controller");
  CHECK(ControllerAliases().at("svm") == "storage-version-migrator-controller");
}

TEST_CASE("controllers: --controllers validation reports every unknown name",
          "[controllermanager]") {
  CHECK(ValidateControllers({"*"}).empty());
  CHECK(ValidateControllers({"*", "-namespace", "garbage-collector-controller",
                             "-bootstrap-signer-controller", "csrsigning"})
            .empty());
  const auto errors = ValidateControllers({"*", "foo", "-bar", "-*", "namespace-controllers"});
  CHECK(errors == std::vector<std::string>{
                      "\"foo\" is not in the list of known controllers",
                      "\"bar\" is not in the list of known controllers",
                      "\"*\" is not in the list of known controllers",
                      "\"namespace-controllers\" is not in the list of known controllers"});
  CHECK(AggregateErrors({errors[0]}) == errors[0]);
  CHECK(AggregateErrors({errors[0], errors[1], errors[0]}) ==
        "[\"foo\" is not in the list of known controllers, \"bar\" is not in the list of known "
        "controllers]");
  CHECK(AggregateErrors({errors[0], errors[0]}) == errors[0]);
  CHECK(AggregateErrors({}).empty());
}

TEST_CASE("controllers: aliases become canonical names, and the first entry decides",
          "[controllermanager]") {
  CHECK(CanonicalControllers({"*", "-namespace", "garbagecollector", "foo"}) ==
        std::vector<std::string>{"*", "-namespace-controller", "garbage-collector-controller",
                                 "foo"});
  const std::set<std::string> off = {"bootstrap-signer-controller"};
  CHECK(IsControllerEnabled("namespace-controller", off, {"*"}));
  CHECK_FALSE(IsControllerEnabled("bootstrap-signer-controller", off, {"*"}));
  CHECK(IsControllerEnabled("bootstrap-signer-controller", off,
                            {"*", "bootstrap-signer-controller"}));
  CHECK_FALSE(IsControllerEnabled("namespace-controller", off, {"*", "-namespace-controller"}));
  CHECK_FALSE(IsControllerEnabled("namespace-controller", off, {"-namespace-controller", "*"}));
  CHECK(IsControllerEnabled("namespace-controller", off,
                            {"namespace-controller", "-namespace-controller"}));
  CHECK_FALSE(IsControllerEnabled("namespace-controller", off, {"garbage-collector-controller"}));
  CHECK_FALSE(IsControllerEnabled("namespace-controller", off, {}));
}
