#pragma once
// What server-side apply does with objects, guided by a typed::Schema (structured-merge-diff's
// typed values): the set of fields an object sets, the fields two objects differ in, the
// merge of an applied configuration into a live object and the removal of fields. Objects
// are JSON; an absent object or field is a null pointer, which differs from a JSON null.
// Pure functions: any thread.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/fieldpath/set.h"
#include "pkg/genericserver/apimachinery/typed/schema.h"

namespace apimachinery::typed {

// The fields `value` sets: scalars, atomic lists and maps, empty maps and every list item or
// map entry that is not a struct field, as members; fields below them as children. Problems
// with list items (a keyed item without its key, duplicates) are added to `errors` as
// upstream words them (".spec.containers: duplicate entries for key [name=\"a\"]").
fieldpath::Set ToFieldSet(const nlohmann::json& value, const Type& type,
                          std::vector<std::string>* errors = nullptr);

struct Comparison {
  fieldpath::Set added, modified, removed;
  bool Same() const { return added.Empty() && modified.Empty() && removed.Empty(); }
};
// What changed from `lhs` to `rhs` (either may be null: absent). `skip`, a node inside
// either, counts as absent (an object's managedFields).
Comparison Compare(const nlohmann::json* lhs, const nlohmann::json* rhs, const Type& type,
                   const nlohmann::json* skip = nullptr);

// `rhs` (an applied configuration) merged into `lhs` (the live object): leaves from rhs,
// maps and keyed lists item by item, atomic lists and maps replaced whole.
nlohmann::json Merge(const nlohmann::json& lhs, const nlohmann::json& rhs, const Type& type);

// `value` without the members of `set` (list items and map entries are dropped whole).
nlohmann::json RemoveItems(const nlohmann::json& value, const fieldpath::Set& set,
                           const Type& type);

// `set` where every struct field that has children is also a member.
fieldpath::Set EnsureNamedFieldsAreMembers(const fieldpath::Set& set, const Type& type);

// The JSON of upstream's new empty Go object of a built-in kind: structs that are not
// pointers (their schema defaults them to {}) are empty objects, required fields null.
nlohmann::json ZeroObject(const Type& type);

}  // namespace apimachinery::typed
