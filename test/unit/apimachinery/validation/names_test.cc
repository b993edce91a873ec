#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "pkg/genericserver/apimachinery/validation/names.h"

namespace v = apimachinery::validation;
using Messages = std::vector<std::string>;

namespace {

// Upstream's messages, as kubectl prints them.
const std::string kLabelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const std::string kSubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const std::string kNamePartMsg =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const std::string kLabelValueMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  "
    "or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

}  // namespace

TEST_CASE("IsDNS1123Label accepts upstream's good values", "[validation]") {
  for (const char* good :
       {"a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2"}) {
    CHECK(v::IsDNS1123Label(good).empty());
  }
  CHECK(v::IsDNS1123Label(std::string(63, 'a')).empty());
}

TEST_CASE("IsDNS1123Label answers upstream's messages", "[validation]") {
  for (const char* bad : {"",   "A",  "ABC", "aBc", "A1",  "A-1", "1-A", "-",   "a-", "-a", "1-",
                          "-1", "_",  "a_",  "_a",  "a_b", "1_",  "_1",  "1_2", ".",  "a.", ".a",
                          "1.", ".1", " ",   "a ",  " a",  "a b", "1 ",  " 1",  "1 2"}) {
    CHECK(v::IsDNS1123Label(bad) == Messages{kLabelMsg});
  }
  // A good subdomain is only wrong for its dots.
  CHECK(v::IsDNS1123Label("a.b") == Messages{"must not contain dots"});
  CHECK(v::IsDNS1123Label("1.2") == Messages{"must not contain dots"});
  CHECK(v::IsDNS1123Label(std::string(64, 'a')) == Messages{"must be no more than 63 characters"});
  CHECK(v::IsDNS1123Label(std::string(64, 'A')) ==
        Messages{"must be no more than 63 characters", kLabelMsg});
}

TEST_CASE("IsDNS1123Subdomain", "[validation]") {
  for (const char* good :
       {"a", "ab", "a.b", "a-1.b-2", "0.a", "a.b.c.d.e", "1.2.3.4", "example.com"}) {
    CHECK(v::IsDNS1123Subdomain(good).empty());
  }
  CHECK(v::IsDNS1123Subdomain(std::string(253, 'a')).empty());
  for (const char* bad : {"", "A", "a.", ".a", "a..b", "a.-b", "a-.b", "a_b", "Foo", "a b"}) {
    CHECK(v::IsDNS1123Subdomain(bad) == Messages{kSubdomainMsg});
  }
  CHECK(v::IsDNS1123Subdomain(std::string(254, 'a')) ==
        Messages{"must be no more than 253 characters"});
}

TEST_CASE("IsDNS1035Label", "[validation]") {
  CHECK(v::IsDNS1035Label("my-svc").empty());
  CHECK(v::IsDNS1035Label("1abc") ==
        Messages{"a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
                 "start with an alphabetic character, and end with an alphanumeric character "
                 "(e.g. 'my-name',  or 'abc-123', regex used for validation is "
                 "'[a-z]([-a-z0-9]*[a-z0-9])?')"});
}

TEST_CASE("IsQualifiedName", "[validation]") {
  for (const char* good :
       {"simple", "now-with-dashes", "1-starts-with-num", "1234", "simple/simple",
        "now-with-dashes/simple", "now-with-dashes/now-with-dashes", "now.with.dots/simple",
        "now-with.dashes-and.dots/simple", "1-num.2-num/3-num", "1234/5678", "1.2.3.4/5678",
        "Uppercase_Is_OK_123", "example.com/Uppercase_Is_OK_123", "requests.storage-foo"}) {
    CHECK(v::IsQualifiedName(good).empty());
  }
  CHECK(v::IsQualifiedName(std::string(63, 'a')).empty());
  CHECK(v::IsQualifiedName(std::string(253, 'a') + "/" + std::string(63, 'b')).empty());

  CHECK(v::IsQualifiedName("invalid label") == Messages{kNamePartMsg});
  CHECK(v::IsQualifiedName("nospecialchars%^=@") == Messages{kNamePartMsg});
  CHECK(v::IsQualifiedName("") == Messages{"name part must be non-empty", kNamePartMsg});
  CHECK(v::IsQualifiedName("/simple") == Messages{"prefix part must be non-empty"});
  CHECK(v::IsQualifiedName("simple/") == Messages{"name part must be non-empty", kNamePartMsg});
  CHECK(v::IsQualifiedName("Example.com/simple") == Messages{"prefix part " + kSubdomainMsg});
  CHECK(v::IsQualifiedName(std::string(64, 'a')) ==
        Messages{"name part must be no more than 63 characters"});
  CHECK(v::IsQualifiedName(std::string(254, 'a') + "/abc") ==
        Messages{"prefix part must be no more than 253 characters"});
  CHECK(v::IsQualifiedName("a/b/c") ==
        Messages{"a qualified name must consist of alphanumeric characters, '-', '_' or '.', and "
                 "must start and end with an alphanumeric character (e.g. 'MyName',  or "
                 "'my.name',  or '123-abc', regex used for validation is "
                 "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain "
                 "prefix and '/' (e.g. 'example.com/MyName')"});
}

TEST_CASE("IsValidLabelValue", "[validation]") {
  for (const char* good : {"simple", "now-with-dashes", "1-starts-with-num", "end-with-num-1",
                           "1234", "", "A.B_c-9", "Uppercase_Is_OK_123"}) {
    CHECK(v::IsValidLabelValue(good).empty());
  }
  CHECK(v::IsValidLabelValue(std::string(63, 'a')).empty());
  for (const char* bad :
       {"nospecialchars%^=@", "Tama-nui-te-rā.is.Māori.sun", "\\backslashes", "-starts-with-dash",
        "ends-with-dash-", ".starts.with.dot", "ends.with.dot.", "spaces are not allowed"}) {
    CHECK(v::IsValidLabelValue(bad) == Messages{kLabelValueMsg});
  }
  CHECK(v::IsValidLabelValue(std::string(64, 'a')) ==
        Messages{"must be no more than 63 characters"});
}

TEST_CASE("ValidateLabels reports keys and values as upstream", "[validation]") {
  CHECK(v::ValidateLabels({{"app.kubernetes.io/name", "web"}, {"empty", ""}}).empty());

  auto errs = v::ValidateLabels({{"hello-world", "spaces not allowed"}});
  REQUIRE(errs.size() == 1);
  CHECK(errs[0] == v::FieldInvalid("metadata.labels", "spaces not allowed", kLabelValueMsg));

  errs = v::ValidateLabels({{"invalid label", "spaces are not allowed"}});
  REQUIRE(errs.size() == 2);
  CHECK(v::ErrorString(errs[0]) ==
        "metadata.labels: Invalid value: \"invalid label\": " + kNamePartMsg);
  CHECK(v::ErrorString(errs[1]) ==
        "metadata.labels: Invalid value: \"spaces are not allowed\": " + kLabelValueMsg);

  errs = v::ValidateLabels({{"a/b/c", "ok"}}, "spec.template.metadata.labels");
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].field == "spec.template.metadata.labels");
  CHECK(errs[0].bad_value == "a/b/c");
}

TEST_CASE("ValidateAnnotations checks keys case-insensitively and the total size", "[validation]") {
  CHECK(v::ValidateAnnotations({{"foo", "bar"}, {"Example.com/MixedCase", "any value at all"}})
            .empty());

  auto errs = v::ValidateAnnotations({{"!@#$%^", "hello world"}});
  REQUIRE(errs.size() == 1);
  CHECK(errs[0] == v::FieldInvalid("metadata.annotations", "!@#$%^", kNamePartMsg));

  // Exactly at the limit is fine; one byte more is not.
  const size_t limit = v::kTotalAnnotationSizeLimitBytes;
  CHECK(v::ValidateAnnotations({{"a", std::string(limit - 1, 'x')}}).empty());
  errs = v::ValidateAnnotations({{"a", std::string(limit, 'x')}});
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].type == "FieldValueTooLong");
  CHECK(v::ErrorString(errs[0]) ==
        "metadata.annotations: Too long: may not be more than 262144 bytes");
}
