#include <catch2/catch.hpp>

#include "pkg/options/flagset.h"

TEST_CASE("FlagSet parses pflag's forms") {
  options::FlagSet fs("prog");
  std::string s = "default";
  int n = 1, v = 0;
  bool b = false, b2 = true;
  std::vector<std::string> list = {"a"};
  util::Duration d{0};
  fs.String("str", &s, "");
  fs.Int("num", &n, "");
  fs.Bool("flag", &b, "");
  fs.Bool("other", &b2, "");
  fs.StringList("list", &list, "");
  fs.Duration("dur", &d, "");
  fs.Int("v", &v, "");
  fs.Shorthand('v', "v");
  auto errors = fs.Parse({"--str", "x", "--num=42", "--flag", "--other=false", "--list=b,c",
                          "--list", "d", "--dur=1m", "-v=3"});
  CHECK(errors.empty());
  CHECK(s == "x");
  CHECK(n == 42);
  CHECK(b);
  CHECK_FALSE(b2);
  CHECK(list == std::vector<std::string>{"b", "c", "d"});
  CHECK(d == std::chrono::minutes(1));
  CHECK(v == 3);
  CHECK(fs.Changed("num"));
  CHECK_FALSE(fs.Changed("nothere"));

  v = 0;
  CHECK(fs.Parse({"-v", "5"}).empty());
  CHECK(v == 5);
}

TEST_CASE("FlagSet reports every error at once") {
  options::FlagSet fs("prog");
  int n = 0;
  bool b = false;
  fs.Int("num", &n, "");
  fs.Bool("flag", &b, "");
  auto errors = fs.Parse({"--nope", "--num=abc", "--flag=maybe", "stray", "--num"});
  REQUIRE(errors.size() == 5);
  CHECK(errors[0] == "unknown flag: --nope");
  CHECK(errors[1] ==
        "invalid argument \"abc\" for \"--num\" flag: strconv.ParseInt: parsing \"abc\": invalid "
        "syntax");
  CHECK(errors[2].starts_with("invalid argument \"maybe\" for \"--flag\" flag"));
  CHECK(errors[3] == "flag needs an argument: --num");
  CHECK(errors[4] == "\"prog\" does not take any arguments, got [\"stray\"]");
}

TEST_CASE("FlagSet usage lists flags by section with defaults") {
  options::FlagSet fs("prog");
  int port = 6443;
  fs.Section("Secure serving flags");
  fs.Int("secure-port", &port, "The port.");
  std::string usage = fs.Usage();
  CHECK(usage.find("Secure serving flags:") != std::string::npos);
  CHECK(usage.find("--secure-port int") != std::string::npos);
  CHECK(usage.find("(default 6443)") != std::string::npos);
}
