#pragma once
// A set of fields of an object (who owns what, in server-side apply): a tree whose nodes are
// path elements. A node is a member when the field itself is in the set; it has children
// when fields below it are. Encoded as upstream's FieldsV1: a JSON object whose keys are the
// serialized path elements and whose "." key marks a node that is a member and has
// children. Sets are values; any thread may read one no thread writes.

#include <expected>
#include <functional>
#include <string>
#include <vector>

#include "pkg/genericserver/apimachinery/fieldpath/path_element.h"

namespace apimachinery::fieldpath {

class Set {
 public:
  struct Child;

  Set();
  Set(const Set&);
  Set(Set&&) noexcept;
  Set& operator=(const Set&);
  Set& operator=(Set&&) noexcept;
  ~Set();

  // Adds the field at `path` (a path of length 0 adds nothing: no one owns the whole object).
  void Insert(const Path& path);
  bool Has(const Path& path) const;
  bool Empty() const;
  // Members, counted over the whole tree.
  size_t Size() const;

  Set Union(const Set& other) const;
  Set Intersection(const Set& other) const;
  // The members of this set that are not members of `other`.
  Set Difference(const Set& other) const;
  // Difference, and also every field below a member of `other`.
  Set RecursiveDifference(const Set& other) const;
  bool operator==(const Set& other) const;

  // Each member's path, in the order of the encoding.
  void Iterate(const std::function<void(const Path&)>& visit) const;
  std::vector<Path> Paths() const;

  // The direct members and children, sorted.
  const std::vector<PathElement>& members() const { return members_; }
  const std::vector<Child>& children() const { return children_; }
  bool HasMember(const PathElement& e) const;
  // The set below `e` (null when none).
  const Set* ChildAt(const PathElement& e) const;
  Set& DescendInto(const PathElement& e);
  void InsertMember(const PathElement& e);

  // FieldsV1, byte for byte as upstream encodes it.
  std::string ToFieldsV1() const;
  // The same as JSON (whose keys sort as text: "i:10" before "i:9").
  nlohmann::json ToFieldsV1Json() const;
  // Decodes FieldsV1 (keys of unknown element types are skipped, as upstream skips them).
  static std::expected<Set, std::string> FromFieldsV1(const nlohmann::json& fields);

 private:
  void Emit(std::string& out, bool include_self) const;
  void IterateFrom(Path& prefix, const std::function<void(const Path&)>& visit) const;

  std::vector<PathElement> members_;
  std::vector<Child> children_;
};

struct Set::Child {
  PathElement element;
  Set set;
};

}  // namespace apimachinery::fieldpath
