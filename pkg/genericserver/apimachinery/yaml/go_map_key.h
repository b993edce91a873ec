#pragma once
// The keys of the map[interface{}]interface{} go-yaml decodes a mapping into: which keys are
// the same to Go, how fmt prints them, and the JSON member names sigs.k8s.io/yaml makes of
// them. Internal to apimachinery/yaml.

#include <cstddef>
#include <cstdint>
#include <expected>
#include <map>
#include <string>
#include <utility>

namespace apimachinery::yaml::internal {

struct GoMapKey {
  enum class Type { kNil, kBool, kInt, kUint, kFloat, kString };
  Type type = Type::kNil;
  bool boolean = false;
  std::int64_t integer = 0;
  std::uint64_t unsigned_integer = 0;
  double floating = 0;
  std::string text;
};

// fmt's %#v of a key: "\"a\"", "1", "true", "<nil>" (as in "key \"a\" already set in map").
std::string GoKeySyntax(const GoMapKey& key);

// sigs.k8s.io/yaml's member name for a key: strings as they are, integers in decimal, floats
// as go-yaml writes them at 32-bit precision, booleans "true"/"false". nil and uint64 keys
// are unsupported: the error is "Unsupported map key of type: uint64, key: 0x..." (the caller
// appends ", value: ...").
std::expected<std::string, std::string> JSONMemberName(const GoMapKey& key);

// Positions of distinct keys, with Go's map equality (type and value; NaN never equals
// itself; 0 and -0 are equal).
class GoKeyIndex {
 public:
  // The key's position, adding it at the next position when new (second: it was new).
  std::pair<std::size_t, bool> Insert(const GoMapKey& key);

 private:
  std::map<std::pair<int, std::string>, std::size_t> positions_;
  std::size_t nan_keys_ = 0;
};

}  // namespace apimachinery::yaml::internal
