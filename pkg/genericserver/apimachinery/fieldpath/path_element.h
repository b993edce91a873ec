#pragma once
// One step of a path into an object, as structured-merge-diff names them: a field of a map
// (f:<name>), the item of an associative list with these key values (k:{"name":"a"}), the
// item of a set with this value (v:"a"), or the item of an atomic list at this index (i:0).
// Values are immutable once built; any thread may read them.

#include <compare>
#include <cstdint>
#include <expected>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace apimachinery::fieldpath {

// A total order of JSON values as upstream's value.Compare orders them: numbers (ints and
// floats compared numerically) < strings < booleans < lists < maps < null.
int CompareValues(const nlohmann::json& a, const nlohmann::json& b);

struct PathElement {
  enum class Kind : uint8_t { kField, kKey, kValue, kIndex };
  Kind kind = Kind::kField;
  std::string name;                                          // kField
  std::vector<std::pair<std::string, nlohmann::json>> keys;  // kKey, sorted by name
  nlohmann::json value;                                      // kValue
  int64_t index = 0;                                         // kIndex

  static PathElement Field(std::string name);
  static PathElement Key(std::vector<std::pair<std::string, nlohmann::json>> keys);
  static PathElement Value(nlohmann::json value);
  static PathElement Index(int64_t index);

  // Fields before keys before values before indexes, then by content.
  int Compare(const PathElement& other) const;
  bool operator==(const PathElement& other) const { return Compare(other) == 0; }
  bool operator<(const PathElement& other) const { return Compare(other) < 0; }

  // As conflict messages print it: .name, [name="a",port=80], [="a"], [0].
  std::string String() const;
  // The FieldsV1 key: f:name, k:{"name":"a","port":80}, v:"a", i:0.
  std::string Serialize() const;
  // The inverse of Serialize; unknown prefixes and malformed contents fail.
  static std::expected<PathElement, std::string> Parse(std::string_view text);
};

using Path = std::vector<PathElement>;

// The path as upstream's fieldpath.Path prints it: .spec.containers[name="a"].image.
std::string PathString(const Path& path);

}  // namespace apimachinery::fieldpath
