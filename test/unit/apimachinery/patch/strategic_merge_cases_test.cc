// Strategic merge patch semantics on the MergeItem test type of upstream's strategicpatch
// tests (one field per strategy): the cases below restate the expectations of upstream's
// patch_test.go for the server-side application of a patch.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/patch/openapi_patch_schema.h"
#include "pkg/genericserver/apimachinery/patch/strategic_merge_patch.h"
#include "test/unit/apimachinery/patch/test_schemas.h"

using apimachinery::patch::ApplyStrategicMergePatch;
using apimachinery::patch::NewOpenApiPatchSchema;
using apimachinery::patch::NoPatchSchema;
using apimachinery::patch::PatchSchema;
using nlohmann::json;

namespace {

const PatchSchema& MergeItem() {
  static const auto schema =
      NewOpenApiPatchSchema(json::parse(patch_test::kMergeItemComponents), "mergeItem");
  REQUIRE(schema);
  return **schema;
}

struct Case {
  const char* description;
  const char* original;
  const char* patch;
  const char* result;
};

void Check(const Case& c, const PatchSchema& schema) {
  INFO(c.description);
  auto result = ApplyStrategicMergePatch(json::parse(c.original), json::parse(c.patch), schema);
  INFO((result ? std::string() : result.error().message));
  REQUIRE(result);
  CHECK(*result == json::parse(c.result));
}

}  // namespace

TEST_CASE("Strategic merge patch of maps", "[patch]") {
  const Case cases[] = {
      {"add field to map", R"({"name":"1","other":"a"})", R"({"value":"1"})",
       R"({"name":"1","other":"a","value":"1"})"},
      {"add field and delete field", R"({"name":"1","other":"a"})", R"({"name":null,"value":"1"})",
       R"({"other":"a","value":"1"})"},
      {"delete field from nested map", R"({"simpleMap":{"key1":"1","key2":"1","other":"a"}})",
       R"({"simpleMap":{"key2":null}})", R"({"simpleMap":{"key1":"1","other":"a"}})"},
      {"delete map from nested map", R"({"simpleMap":{"key1":"1","key2":"1"}})",
       R"({"simpleMap":{"$patch":"delete"}})", R"({"simpleMap":{}})"},
      {"delete all keys from map", R"({"name":"1","value":"1"})", R"({"$patch":"replace"})", "{}"},
      {"add key and delete all keys from map", R"({"name":"1","value":"1"})",
       R"({"other":"a","$patch":"replace"})", R"({"other":"a"})"},
      {"defined null values remove fields", R"({"name":"a","other":"a"})",
       R"({"name":"1","value":"1","other":null})", R"({"name":"1","value":"1"})"},
      {"nil patch", R"({"name":"1"})", "{}", R"({"name":"1"})"},
      {"replace strategy replaces a map", R"({"replacingItem":{"a":1,"b":{"c":2}}})",
       R"({"replacingItem":{"b":{"d":3}}})", R"({"replacingItem":{"b":{"d":3}}})"},
      {"retainKeys map adds a field without a directive", R"({"retainKeysMap":{"name":"foo"}})",
       R"({"retainKeysMap":{"value":"bar"}})", R"({"retainKeysMap":{"name":"foo","value":"bar"}})"},
      {"retainKeys directive drops unlisted keys",
       R"({"retainKeysMap":{"name":"foo","value":"a","other":"b"}})",
       R"({"retainKeysMap":{"$retainKeys":["name","value"],"value":"c"}})",
       R"({"retainKeysMap":{"name":"foo","value":"c"}})"},
  };
  for (const Case& c : cases) Check(c, MergeItem());
}

TEST_CASE("Strategic merge patch of lists", "[patch]") {
  const Case cases[] = {
      {"unique scalars when merging lists", R"({"mergingIntList":[1,2]})",
       R"({"mergingIntList":[2,3]})", R"({"mergingIntList":[1,2,3]})"},
      {"replace list of scalars", R"({"nonMergingIntList":[1,2]})",
       R"({"nonMergingIntList":[2,3]})", R"({"nonMergingIntList":[2,3]})"},
      {"replace non-merging list of maps", R"({"nonMergingList":[{"name":"1"},{"name":"2"}]})",
       R"({"nonMergingList":[{"name":"3"}]})", R"({"nonMergingList":[{"name":"3"}]})"},
      {"delete all items from merging list", R"({"mergingList":[{"name":"1"},{"name":"2"}]})",
       R"({"mergingList":[{"$patch":"replace"}]})", R"({"mergingList":[]})"},
      {"merge empty merging lists", R"({"mergingList":[]})", R"({"mergingList":[]})",
       R"({"mergingList":[]})"},
      {"delete all duplicate entries in a merging list",
       R"({"mergingList":[{"name":"1"},{"name":"1"},{"name":"2","value":"a"},{"name":"3"},{"name":"3"}]})",
       R"({"mergingList":[{"name":"1","$patch":"delete"},{"name":"3","$patch":"delete"}]})",
       R"({"mergingList":[{"name":"2","value":"a"}]})"},
      {"retainKeys list deletes a field",
       R"({"retainKeysMergingList":[{"name":"bar"},{"name":"foo","value":"a"}]})",
       R"({"retainKeysMergingList":[{"name":"foo","value":null}]})",
       R"({"retainKeysMergingList":[{"name":"bar"},{"name":"foo"}]})"},
      {"preserve the order from the patch in a merging list",
       R"({"mergingList":[{"name":"1"},{"name":"2","value":"b"},{"name":"3"}]})",
       R"({"mergingList":[{"name":"3","value":"c"},{"name":"1","value":"a"},{"name":"2","other":"x"}]})",
       R"({"mergingList":[{"name":"3","value":"c"},{"name":"1","value":"a"},{"name":"2","value":"b","other":"x"}]})"},
      {"preserve the order from the patch in a merging list 2",
       R"({"mergingList":[{"name":"1"},{"name":"2","value":"b"},{"name":"3"}]})",
       R"({"mergingList":[{"name":"3","value":"c"},{"name":"1","value":"a"}]})",
       R"({"mergingList":[{"name":"2","value":"b"},{"name":"3","value":"c"},{"name":"1","value":"a"}]})"},
      {"preserve the order from the patch in a merging int list", R"({"mergingIntList":[1,2,3]})",
       R"({"mergingIntList":[3,1,2]})", R"({"mergingIntList":[3,1,2]})"},
      {"preserve the order from the patch in a merging int list 2", R"({"mergingIntList":[1,2,3]})",
       R"({"mergingIntList":[3,1]})", R"({"mergingIntList":[2,3,1]})"},
      {"$setElementOrder lists an item missing from the merged list",
       R"({"mergingList":[{"name":"1"},{"name":"3"}]})",
       R"({"$setElementOrder/mergingList":[{"name":"3"},{"name":"2"},{"name":"1"}],
           "mergingList":[{"name":"3","value":"3"},{"name":"1","value":"1"}]})",
       R"({"mergingList":[{"name":"3","value":"3"},{"name":"1","value":"1"}]})"},
      {"$setElementOrder alone reorders an int list", R"({"mergingIntList":[1,3]})",
       R"({"$setElementOrder/mergingIntList":[3,2,1]})", R"({"mergingIntList":[3,1]})"},
      {"delete items in lists of scalars", R"({"mergingIntList":[1,2,3,4]})",
       R"({"$setElementOrder/mergingIntList":[1,2],"$deleteFromPrimitiveList/mergingIntList":[3]})",
       R"({"mergingIntList":[1,2,4]})"},
      {"delete all duplicate items in lists of scalars", R"({"mergingIntList":[1,2,3,3,4]})",
       R"({"$setElementOrder/mergingIntList":[1,2],"$deleteFromPrimitiveList/mergingIntList":[3]})",
       R"({"mergingIntList":[1,2,4]})"},
      {"add and delete items in lists of scalars", R"({"mergingIntList":[1,2,3,4]})",
       R"({"$setElementOrder/mergingIntList":[1,2,4],"$deleteFromPrimitiveList/mergingIntList":[3],
           "mergingIntList":[4]})",
       R"({"mergingIntList":[1,2,4]})"},
      {"$deleteFromPrimitiveList whatever the strategy", R"({"nonMergingIntList":[1,2,3]})",
       R"({"$deleteFromPrimitiveList/nonMergingIntList":[2]})", R"({"nonMergingIntList":[1,3]})"},
      {"merge lists of maps",
       R"({"mergingList":[{"name":"1","other":"a"},{"name":"2","value":"2","other":"b"}]})",
       R"({"$setElementOrder/mergingList":[{"name":"4"},{"name":"1"},{"name":"2"},{"name":"3"}],
           "mergingList":[{"name":"4","value":"4"},{"name":"3","value":"3"}]})",
       R"({"mergingList":[{"name":"4","value":"4"},{"name":"1","other":"a"},
                          {"name":"2","value":"2","other":"b"},{"name":"3","value":"3"}]})"},
      {"nested merging lists",
       R"({"mergingList":[{"name":"1","mergingList":[{"name":"a","value":"x"}]}]})",
       R"({"mergingList":[{"name":"1","mergingList":[{"name":"a","other":"y"},{"name":"b"}]}]})",
       R"({"mergingList":[{"name":"1","mergingList":[{"name":"a","value":"x","other":"y"},{"name":"b"}]}]})"},
  };
  for (const Case& c : cases) Check(c, MergeItem());
}

TEST_CASE("Strategic merge patch errors on MergeItem", "[patch]") {
  auto apply = [](const char* original, const char* patch) {
    return ApplyStrategicMergePatch(json::parse(original), json::parse(patch), MergeItem());
  };
  auto order = apply(R"({"mergingList":[{"name":"1"},{"name":"3"},{"name":"2"}]})",
                     R"({"$setElementOrder/mergingList":[{"name":"1"},{"name":"2"},{"name":"3"}],
                         "mergingList":[{"name":"3","value":"3"},{"name":"1","value":"1"}]})");
  REQUIRE_FALSE(order);
  CHECK_THAT(order.error().message, Catch::Contains("doesn't match"));
  auto int_order = apply(R"({"mergingIntList":[1,3,2]})",
                         R"({"$setElementOrder/mergingIntList":[1,2,3],"mergingIntList":[3,1]})");
  REQUIRE_FALSE(int_order);
  CHECK(int_order.error().message ==
        "The order in patch list:\n[3 1]\n doesn't match $setElementOrder list:\n[1 2 3]\n");
  auto no_key =
      apply(R"({"mergingList":[{"name":"1","value":"a"}]})", R"({"mergingList":[{"value":"b"}]})");
  REQUIRE_FALSE(no_key);
  CHECK(no_key.error().message == "map: map[value:b] does not contain declared merge key: name");
  auto maps_in_int_list = apply(R"({"mergingIntList":[]})", R"({"mergingIntList":[{"a":1}]})");
  REQUIRE_FALSE(maps_in_int_list);
  CHECK(maps_in_int_list.error().message == "cannot merge lists without merge key for struct");
}

TEST_CASE("Without a schema maps merge and every list is replaced", "[patch]") {
  const Case cases[] = {
      {"maps merge, lists replace", R"({"a":{"b":1},"l":[1,2]})", R"({"a":{"c":2},"l":[3]})",
       R"({"a":{"b":1,"c":2},"l":[3]})"},
      {"lists of maps replace", R"({"containers":[{"name":"x","image":"a"}]})",
       R"({"containers":[{"name":"y"}]})", R"({"containers":[{"name":"y"}]})"},
      {"nulls delete", R"({"a":{"b":1,"c":2}})", R"({"a":{"b":null}})", R"({"a":{"c":2}})"},
  };
  for (const Case& c : cases) Check(c, *NoPatchSchema());
}
