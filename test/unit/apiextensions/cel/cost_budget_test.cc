// The CRD side of static CEL costs against upstream's vectors: TestPerCRDEstimatedCost (the
// schema's total and its largest contributors), TestCostInfo (cardinality through maps,
// lists and objects) and the factor formatting of the messages.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "pkg/apiextensions/cel/cost_budget.h"
#include "pkg/apiextensions/cel/cost_estimate.h"
#include "pkg/apiextensions/cel/schema_types.h"

namespace cel = apiextensions::cel;
using nlohmann::json;

TEST_CASE("CEL cost budget: the schema's total and its most expensive rules", "[cel][cost]") {
  struct Case {
    std::vector<uint64_t> observed;
    std::vector<uint64_t> most_expensive;
    uint64_t total;
  };
  const uint64_t half = cel::kMaxUint64 / 2;
  const std::vector<Case> cases = {
      {{}, {}, 0},
      {{1000000}, {1000000}, 1000000},
      {{900000}, {}, 900000},
      {{5000000, 25000000}, {25000000, 5000000}, 30000000},
      {{5000000, 25000000, 900000}, {25000000, 5000000}, 30900000},
      {{16000000, 50000000, 34000000, 50000000},
       {50000000, 50000000, 34000000, 16000000},
       150000000},
      {{16000000, 50000000, 900000, 34000000, 50000000, 50000001},
       {50000001, 50000000, 50000000, 34000000},
       200900001},
      {{half, half, 1, 10, 100, 1000}, {half, half}, cel::kMaxUint64},
  };
  for (const Case& c : cases) {
    cel::TotalCost total;
    for (size_t i = 0; i < c.observed.size(); ++i) {
      total.Observe("r" + std::to_string(i), c.observed[i]);
    }
    std::vector<uint64_t> got;
    for (const auto& r : total.most_expensive()) got.push_back(r.cost);
    CHECK(got == c.most_expensive);
    CHECK(total.total() == c.total);
  }
  // Equal costs keep the order they were seen in.
  cel::TotalCost ties;
  for (const char* p : {"a", "b", "c", "d", "e"}) ties.Observe(p, 2000000);
  std::vector<std::string> paths;
  for (const auto& r : ties.most_expensive()) paths.push_back(r.path);
  CHECK(paths == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(ties.Errors("root").empty());  // 10,000,000 is within the schema's limit
}

TEST_CASE("CEL cost budget: cardinality of a string under maps, lists and objects", "[cel][cost]") {
  const json object = {{"type", "object"}};
  auto array = [](std::optional<int64_t> max) {
    json s = {{"type", "array"}, {"items", {{"type", "string"}}}};
    if (max) s["maxItems"] = *max;
    return s;
  };
  auto map = [](std::optional<int64_t> max) {
    json s = {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}};
    if (max) s["maxProperties"] = *max;
    return s;
  };
  // The cardinality of a node reached through the parents (outermost first) from the root.
  auto under = [](const std::vector<json>& parents) {
    std::optional<uint64_t> card = 1;
    for (const json& p : parents) card = cel::ChildCardinality(card, p);
    return card;
  };
  CHECK(under({object}) == 1);
  CHECK(under({array(5)}) == 5);
  CHECK(under({array(std::nullopt)}) == std::nullopt);
  CHECK(under({map(10)}) == 10);
  CHECK(under({map(std::nullopt)}) == std::nullopt);
  CHECK(under({map(5), array(5)}) == 25);
  CHECK(under({map(5), array(std::nullopt)}) == std::nullopt);
  CHECK(under({array(3), object}) == 3);
  CHECK(under({array(2), object, map(4)}) == 8);
  CHECK(under({array(INT64_MAX), array(100)}) == cel::kMaxUint64);
  // additionalProperties: true makes an object a map too; a negative bound is 0.
  CHECK(under({{{"type", "object"}, {"additionalProperties", true}}}) == std::nullopt);
  CHECK(under({array(-1)}) == 0);

  // Unbounded: as many of the smallest values as fit a request (3 MiB / (2 + 1) for strings).
  const cel::TypePtr str = cel::SchemaType({{"type", "string"}}, false);
  CHECK(cel::ExpressionCost(629147, std::nullopt, *str) == 629147ULL * 1048576);
  CHECK(cel::ExpressionCost(0, std::nullopt, *str) == 0);
  CHECK(cel::ExpressionCost(cel::kMaxUint64, 2, *str) == cel::kMaxUint64);
}

TEST_CASE("CEL cost budget: upstream's factor formatting", "[cel][cost]") {
  const std::string hint =
      " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where "
      "arrays, maps, and strings are declared)";
  auto msg = [](uint64_t cost) { return cel::CostErrorMessage("estimated rule cost", cost, 100); };
  CHECK(msg(120) == "estimated rule cost exceeds budget by factor of 1.200000x" + hint);
  CHECK(msg(149) == "estimated rule cost exceeds budget by factor of 1.490000x" + hint);
  CHECK(msg(150) == "estimated rule cost exceeds budget by factor of 1.5x" + hint);
  CHECK(msg(2000) == "estimated rule cost exceeds budget by factor of 20.0x" + hint);
  CHECK(msg(10000) == "estimated rule cost exceeds budget by factor of 100.0x" + hint);
  CHECK(msg(10001) == "estimated rule cost exceeds budget by factor of more than 100x" + hint);
}
