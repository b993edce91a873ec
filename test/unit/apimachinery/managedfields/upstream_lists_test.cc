// The merge schema of every built-in type against upstream 1.32's (client-go's generated
// structured-merge-diff schema, reduced to testdata/upstream_lists.tsv): every list field's
// relationship (atomic, set, keyed by which keys), the atomic maps and the atomic structs.
// Types and fields our schemas do not have (newer than our OpenAPI data) are counted, not
// compared.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/typed/schema.h"
#include "pkg/master/schemas/schemas.h"
#include "pkg/util/strings.h"

using apimachinery::typed::Schema;
using apimachinery::typed::Type;
using nlohmann::json;

namespace {

struct Row {
  std::string type, field, relationship, keys;
};

std::vector<Row> UpstreamRows() {
  std::ifstream in(KAS_UPSTREAM_LISTS);
  REQUIRE(in);
  std::vector<Row> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols = util::Split(line, '\t');
    REQUIRE(cols.size() == 4);
    rows.push_back({cols[0], cols[1], cols[2], cols[3]});
  }
  return rows;
}

// What our schema makes of a node, in the table's words.
std::string Describe(const Type& t) {
  if (t.kind == Type::Kind::kList) {
    if (t.atomic) return "atomic -";
    if (t.set) return "associative -";
    return "associative " + util::Join(t.keys, ",");
  }
  if (t.kind == Type::Kind::kMap && t.atomic)
    return t.is_struct ? "atomic-struct -" : "atomic-map -";
  return "granular";
}

}  // namespace

TEST_CASE("every built-in list keeps upstream 1.32's semantics", "[typed]") {
  // Which group-version's components hold each type.
  std::map<std::string, const json*> holder;
  for (const std::string& gv : schemas::GroupVersions()) {
    const json* components = schemas::Components(gv);
    if (!components) continue;
    for (auto& [name, schema] : components->items()) holder.emplace(name, components);
  }
  std::map<std::string, std::unique_ptr<Schema>> built;
  size_t compared = 0, missing = 0;
  for (const Row& row : UpstreamRows()) {
    auto it = holder.find(row.type);
    if (it == holder.end()) {
      ++missing;
      continue;
    }
    auto& schema = built[row.type];
    if (!schema) schema = std::make_unique<Schema>(*it->second, row.type);
    const Type& root = schema->Root();
    const Type* node = &root;
    if (row.field != ".") {
      const auto* field = root.FindField(row.field);
      if (!field) {
        ++missing;
        continue;
      }
      node = field->type;
    }
    INFO(row.type << " " << row.field);
    CHECK(Describe(*node) == row.relationship + " " + row.keys);
    ++compared;
  }
  // And no struct of these types is atomic where upstream's is not.
  std::set<std::string> atomic_structs;
  for (const Row& row : UpstreamRows()) {
    if (row.field == ".") atomic_structs.insert(row.type);
  }
  for (auto& [name, schema] : built) {
    INFO(name);
    CHECK(schema->Root().atomic == atomic_structs.contains(name));
  }
  // Most of the table is compared: what is missing is what our (older) schemas lack.
  CHECK(compared >= 260);
  WARN(compared << " compared, " << missing << " not in our schemas");
}
