#include "pkg/genericserver/apimachinery/typed/operations.h"

#include <map>
#include <optional>

namespace apimachinery::typed {

using fieldpath::Path;
using fieldpath::PathElement;
using fieldpath::Set;
using nlohmann::json;

namespace {

enum class Shape { kLeaf, kMap, kList };

// How a value of `type` is walked: structured-merge-diff's deduceAtom. Nulls and mismatches
// are leaves; so are atomic nodes.
Shape ShapeOf(const json* value, const Type& type) {
  if (!value || value->is_null()) {
    // A null takes the shape of the type (the other side decides in comparisons).
    if (type.atomic) return Shape::kLeaf;
    if (type.kind == Type::Kind::kMap) return Shape::kMap;
    if (type.kind == Type::Kind::kList) return Shape::kList;
    return Shape::kLeaf;
  }
  if (value->is_object()) {
    if (type.kind == Type::Kind::kMap) return type.atomic ? Shape::kLeaf : Shape::kMap;
    if (type.kind == Type::Kind::kDeduced) return Shape::kMap;
    return Shape::kLeaf;
  }
  if (value->is_array()) {
    return type.kind == Type::Kind::kList && !type.atomic ? Shape::kList : Shape::kLeaf;
  }
  return Shape::kLeaf;
}

const Type& ElementType(const Type& type) {
  return type.elements ? *type.elements : Schema::Untyped();
}

const Type& FieldType(const Type& type, std::string_view name) {
  if (const Field* f = type.FindField(name)) return *f->type;
  if (type.kind == Type::Kind::kDeduced) return Schema::Deduced();
  return ElementType(type);
}

bool Empty(const json* v) { return !v || v->is_null() || (v->is_structured() && v->empty()); }

// The path element of a list item; nullopt (with the reason) when it has none.
std::optional<PathElement> ItemElement(const Type& list, const json& item, size_t index,
                                       std::string* why) {
  if (list.atomic || list.kind != Type::Kind::kList) return PathElement::Index(index);
  if (!list.keys.empty()) {
    if (!item.is_object()) {
      *why = item.is_null() ? "associative list with keys may not have a null element"
                            : "associative list with keys may not have non-map elements";
      return std::nullopt;
    }
    std::vector<std::pair<std::string, json>> keys;
    const Type& item_type = ElementType(list);
    for (const std::string& k : list.keys) {
      if (auto it = item.find(k); it != item.end()) {
        keys.emplace_back(k, *it);
      } else if (const Field* f = item_type.FindField(k); f && !f->default_value.is_null()) {
        keys.emplace_back(k, f->default_value);
      } else {
        *why = "associative list with keys has an element that omits key field \"" + k +
               "\" (and doesn't have default value)";
        return std::nullopt;
      }
    }
    return PathElement::Key(std::move(keys));
  }
  if (item.is_object()) {
    *why = "associative list without keys has an element that's a map type";
    return std::nullopt;
  }
  if (item.is_array()) {
    *why = "not supported: associative list with lists as elements";
    return std::nullopt;
  }
  if (item.is_null()) {
    *why = "associative list without keys has an element that's an explicit null";
    return std::nullopt;
  }
  return PathElement::Value(item);
}

// The items of a non-atomic list by path element, in order, first occurrence winning.
struct IndexedList {
  std::vector<PathElement> order;
  std::map<PathElement, const json*> items;
};

IndexedList Index(const json* list, const Type& type, const Path* path,
                  std::vector<std::string>* errors, const char* side = "") {
  IndexedList out;
  if (!list || !list->is_array()) return out;
  for (size_t i = 0; i < list->size(); ++i) {
    std::string why;
    auto e = ItemElement(type, (*list)[i], i, &why);
    if (!e) {
      if (errors && path) {
        errors->push_back(fieldpath::PathString(*path) + ": " + side + "element " +
                          std::to_string(i) + ": " + why);
      }
      continue;
    }
    if (out.items.contains(*e)) {
      if (errors && path) {
        errors->push_back(fieldpath::PathString(*path) + ": " + side +
                          "duplicate entries for key " + e->String());
      }
      continue;
    }
    out.items.emplace(*e, &(*list)[i]);
    out.order.push_back(*e);
  }
  return out;
}

const json* Get(const json* map, const std::string& key) {
  if (!map || !map->is_object()) return nullptr;
  auto it = map->find(key);
  return it == map->end() ? nullptr : &*it;
}

// ---- ToFieldSet

void ToSet(const json& value, const Type& type, Path& path, Set& out,
           std::vector<std::string>* errors) {
  switch (ShapeOf(&value, type)) {
    case Shape::kLeaf:
      out.Insert(path);
      return;
    case Shape::kList: {
      if (value.is_null()) return;
      IndexedList list = Index(&value, type, &path, errors);
      for (const PathElement& e : list.order) {
        path.push_back(e);
        ToSet(*list.items[e], ElementType(type), path, out, errors);
        out.Insert(path);
        path.pop_back();
      }
      return;
    }
    case Shape::kMap: {
      if (value.is_null()) return;
      for (const auto& [k, v] : value.items()) {
        path.push_back(PathElement::Field(k));
        ToSet(v, FieldType(type, k), path, out, errors);
        if (v.is_null() || (v.is_object() && v.empty()) || !type.FindField(k)) out.Insert(path);
        path.pop_back();
      }
      return;
    }
  }
}

// ---- Compare

// `skip`: a node of either side that counts as absent (the managedFields of an object).
void CompareAt(const json* lhs, const json* rhs, const Type& type, Path& path, Comparison& c,
               const json* skip) {
  // Equal subtrees differ nowhere: one comparison of the values, without walking them.
  if (lhs && rhs && *lhs == *rhs) return;
  const Shape shape = ShapeOf(rhs ? rhs : lhs, type);
  const Shape other = ShapeOf(lhs ? lhs : rhs, type);
  const bool leaf = shape == Shape::kLeaf || other != shape || (Empty(lhs) && Empty(rhs));
  if (leaf) {
    if (!lhs) {
      c.added.Insert(path);
    } else if (!rhs) {
      c.removed.Insert(path);
    } else if (*lhs != *rhs) {
      c.modified.Insert(path);
    }
    return;
  }
  if (shape == Shape::kMap) {
    // Both objects keep their keys sorted: walk them side by side.
    static const json kEmpty = json::object();
    const json& l = lhs && lhs->is_object() ? *lhs : kEmpty;
    const json& r = rhs && rhs->is_object() ? *rhs : kEmpty;
    auto li = l.begin(), ri = r.begin();
    while (li != l.end() || ri != r.end()) {
      const json* a = nullptr;
      const json* b = nullptr;
      std::string key;
      if (ri == r.end() || (li != l.end() && li.key() < ri.key())) {
        key = li.key();
        a = &*li++;
      } else if (li == l.end() || ri.key() < li.key()) {
        key = ri.key();
        b = &*ri++;
      } else {
        key = li.key();
        a = &*li++;
        b = &*ri++;
      }
      if (a == skip) a = nullptr;
      if (b == skip) b = nullptr;
      if (!a && !b) continue;
      const Type& field = FieldType(type, key);
      path.push_back(PathElement::Field(std::move(key)));
      CompareAt(a, b, field, path, c, skip);
      path.pop_back();
    }
  } else {
    IndexedList l = Index(lhs, type, nullptr, nullptr);
    IndexedList r = Index(rhs, type, nullptr, nullptr);
    for (const PathElement& e : l.order) {
      auto it = r.items.find(e);
      path.push_back(e);
      CompareAt(l.items[e], it == r.items.end() ? nullptr : it->second, ElementType(type), path, c,
                skip);
      path.pop_back();
    }
    for (const PathElement& e : r.order) {
      if (l.items.contains(e)) continue;
      path.push_back(e);
      CompareAt(nullptr, r.items[e], ElementType(type), path, c, skip);
      path.pop_back();
    }
  }
  if (!lhs) {
    c.added.Insert(path);
  } else if (!rhs) {
    c.removed.Insert(path);
  }
}

// ---- Merge

std::optional<json> MergeAt(const json* lhs, const json* rhs, const Type& type);

std::optional<json> MergeListItems(const json* lhs, const json* rhs, const Type& type) {
  IndexedList l = Index(lhs, type, nullptr, nullptr);
  IndexedList r = Index(rhs, type, nullptr, nullptr);
  const Type& item = ElementType(type);
  json out = json::array();
  auto emit = [&](const json* a, const json* b) {
    if (auto m = MergeAt(a, b, item)) out.push_back(std::move(*m));
  };
  // Items of both sides in the applied order; live-only items stay where they were relative
  // to the items around them.
  std::vector<PathElement> shared;
  for (const PathElement& e : r.order) {
    if (l.items.contains(e)) shared.push_back(e);
  }
  size_t next_shared = 0;
  std::map<PathElement, bool> done;
  size_t li = 0, ri = 0;
  while (li < l.order.size() || ri < r.order.size()) {
    if (li < l.order.size() && done[l.order[li]]) {
      ++li;
      continue;
    }
    if (li < l.order.size() && ri < r.order.size()) {
      const PathElement& e = l.order[li];
      if (e == r.order[ri]) {
        emit(l.items[e], r.items[e]);
        done[e] = true;
        ++li, ++ri;
        if (next_shared < shared.size() && shared[next_shared] == e) ++next_shared;
        continue;
      }
      if (r.items.contains(e) && next_shared < shared.size() && !(shared[next_shared] == e)) {
        ++li;  // shared, but its turn comes with the applied order
        continue;
      }
    }
    if (li < l.order.size() && !r.items.contains(l.order[li])) {
      emit(l.items[l.order[li]], nullptr);
      ++li;
      continue;
    }
    if (ri < r.order.size()) {
      const PathElement& e = r.order[ri];
      auto it = l.items.find(e);
      emit(it == l.items.end() ? nullptr : it->second, r.items[e]);
      done[e] = true;
      ++ri;
      if (next_shared < shared.size() && shared[next_shared] == e) ++next_shared;
      continue;
    }
    ++li;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::optional<json> MergeAt(const json* lhs, const json* rhs, const Type& type) {
  const Shape shape = ShapeOf(rhs ? rhs : lhs, type);
  const Shape other = ShapeOf(lhs ? lhs : rhs, type);
  const bool leaf = shape == Shape::kLeaf || other != shape || (Empty(lhs) && Empty(rhs));
  if (leaf) {
    if (rhs) return *rhs;
    if (lhs) return *lhs;
    return std::nullopt;
  }
  if (shape == Shape::kList) return MergeListItems(lhs, rhs, type);
  json out = json::object();
  if (lhs && lhs->is_object()) {
    for (const auto& [k, v] : lhs->items()) {
      if (auto m = MergeAt(&v, Get(rhs, k), FieldType(type, k))) out[k] = std::move(*m);
    }
  }
  if (rhs && rhs->is_object()) {
    for (const auto& [k, v] : rhs->items()) {
      if (Get(lhs, k)) continue;
      if (auto m = MergeAt(nullptr, &v, FieldType(type, k))) out[k] = std::move(*m);
    }
  }
  if (out.empty()) return std::nullopt;
  return out;
}

// ---- RemoveItems

json RemoveAt(const json& value, const Set& set, const Type& type) {
  switch (ShapeOf(&value, type)) {
    case Shape::kLeaf:
      return value;
    case Shape::kList: {
      if (!value.is_array()) return value;
      json out = json::array();
      for (size_t i = 0; i < value.size(); ++i) {
        std::string why;
        auto e = ItemElement(type, value[i], i, &why);
        if (!e) {
          out.push_back(value[i]);
          continue;
        }
        if (set.HasMember(*e)) continue;
        const Set* below = set.ChildAt(*e);
        out.push_back(below && !below->Empty() ? RemoveAt(value[i], *below, ElementType(type))
                                               : value[i]);
      }
      return out;
    }
    case Shape::kMap: {
      if (!value.is_object()) return value;
      json out = json::object();
      for (const auto& [k, v] : value.items()) {
        const PathElement e = PathElement::Field(k);
        if (set.HasMember(e)) continue;
        const Set* below = set.ChildAt(e);
        if (!below || below->Empty()) {
          out[k] = v;
          continue;
        }
        json kept = RemoveAt(v, *below, FieldType(type, k));
        // A container emptied by the removal goes too.
        if (kept.is_structured() && kept.empty() && !(v.is_structured() && v.empty())) continue;
        out[k] = std::move(kept);
      }
      return out;
    }
  }
  return value;
}

Set EnsureAt(const Set& set, const Type& type) {
  Set out;
  for (const PathElement& m : set.members()) out.InsertMember(m);
  for (const Set::Child& c : set.children()) {
    const Type* child = &Schema::Untyped();
    if (c.element.kind == PathElement::Kind::kField) {
      if (type.kind == Type::Kind::kMap && type.FindField(c.element.name)) {
        out.InsertMember(c.element);
      }
      child = &FieldType(type, c.element.name);
    } else if (type.kind == Type::Kind::kList) {
      child = &ElementType(type);
    }
    out.DescendInto(c.element) = EnsureAt(c.set, *child);
  }
  return out;
}

json ZeroAt(const Type& type, int depth) {
  json out = json::object();
  if (depth > 32) return out;
  for (const auto& [name, f] : type.fields) {
    const bool struct_default = f.default_value.is_object() && f.default_value.empty() &&
                                f.type->kind == Type::Kind::kMap && f.type->is_struct;
    if (struct_default) {
      out[name] = ZeroAt(*f.type, depth + 1);
    } else if (f.required) {
      out[name] = nullptr;
    }
  }
  return out;
}

}  // namespace

Set ToFieldSet(const json& value, const Type& type, std::vector<std::string>* errors) {
  Set out;
  Path path;
  ToSet(value, type, path, out, errors);
  return out;
}

Comparison Compare(const json* lhs, const json* rhs, const Type& type, const json* skip) {
  Comparison c;
  Path path;
  if (lhs || rhs) CompareAt(lhs, rhs, type, path, c, skip);
  return c;
}

json Merge(const json& lhs, const json& rhs, const Type& type) {
  auto m = MergeAt(&lhs, &rhs, type);
  return m ? std::move(*m) : json::object();
}

json RemoveItems(const json& value, const Set& set, const Type& type) {
  return RemoveAt(value, set, type);
}

Set EnsureNamedFieldsAreMembers(const Set& set, const Type& type) { return EnsureAt(set, type); }

json ZeroObject(const Type& type) { return ZeroAt(type, 0); }

}  // namespace apimachinery::typed
