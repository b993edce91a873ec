#include "pkg/genericserver/apimachinery/fieldpath/set.h"

#include <algorithm>

namespace apimachinery::fieldpath {

using nlohmann::json;

namespace {

auto LowerMember(const std::vector<PathElement>& v, const PathElement& e) {
  return std::lower_bound(v.begin(), v.end(), e);
}

template <typename Children>
auto LowerChild(Children& v, const PathElement& e) {
  return std::lower_bound(v.begin(), v.end(), e,
                          [](const auto& c, const PathElement& x) { return c.element < x; });
}

}  // namespace

Set::Set() = default;
Set::Set(const Set&) = default;
Set::Set(Set&&) noexcept = default;
Set& Set::operator=(const Set&) = default;
Set& Set::operator=(Set&&) noexcept = default;
Set::~Set() = default;

bool Set::HasMember(const PathElement& e) const {
  auto it = LowerMember(members_, e);
  return it != members_.end() && *it == e;
}

const Set* Set::ChildAt(const PathElement& e) const {
  auto it = LowerChild(children_, e);
  return it != children_.end() && it->element == e ? &it->set : nullptr;
}

Set& Set::DescendInto(const PathElement& e) {
  auto it = LowerChild(children_, e);
  if (it == children_.end() || !(it->element == e)) it = children_.insert(it, Child{e, Set()});
  return it->set;
}

void Set::InsertMember(const PathElement& e) {
  auto it = LowerMember(members_, e);
  if (it == members_.end() || !(*it == e)) members_.insert(it, e);
}

void Set::Insert(const Path& path) {
  if (path.empty()) return;
  Set* node = this;
  for (size_t i = 0; i + 1 < path.size(); ++i) node = &node->DescendInto(path[i]);
  node->InsertMember(path.back());
}

bool Set::Has(const Path& path) const {
  if (path.empty()) return false;
  const Set* node = this;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    node = node->ChildAt(path[i]);
    if (!node) return false;
  }
  return node->HasMember(path.back());
}

bool Set::Empty() const {
  if (!members_.empty()) return false;
  for (const Child& c : children_) {
    if (!c.set.Empty()) return false;
  }
  return true;
}

size_t Set::Size() const {
  size_t n = members_.size();
  for (const Child& c : children_) n += c.set.Size();
  return n;
}

Set Set::Union(const Set& other) const {
  Set out;
  std::set_union(members_.begin(), members_.end(), other.members_.begin(), other.members_.end(),
                 std::back_inserter(out.members_));
  auto a = children_.begin(), b = other.children_.begin();
  while (a != children_.end() || b != other.children_.end()) {
    if (b == other.children_.end() || (a != children_.end() && a->element < b->element)) {
      out.children_.push_back(*a++);
    } else if (a == children_.end() || b->element < a->element) {
      out.children_.push_back(*b++);
    } else {
      out.children_.push_back(Child{a->element, a->set.Union(b->set)});
      ++a, ++b;
    }
  }
  return out;
}

Set Set::Intersection(const Set& other) const {
  Set out;
  std::set_intersection(members_.begin(), members_.end(), other.members_.begin(),
                        other.members_.end(), std::back_inserter(out.members_));
  for (const Child& c : children_) {
    if (const Set* o = other.ChildAt(c.element)) {
      Set both = c.set.Intersection(*o);
      if (!both.Empty()) out.children_.push_back(Child{c.element, std::move(both)});
    }
  }
  return out;
}

Set Set::Difference(const Set& other) const {
  Set out;
  std::set_difference(members_.begin(), members_.end(), other.members_.begin(),
                      other.members_.end(), std::back_inserter(out.members_));
  for (const Child& c : children_) {
    const Set* o = other.ChildAt(c.element);
    Set rest = o ? c.set.Difference(*o) : c.set;
    if (!rest.Empty()) out.children_.push_back(Child{c.element, std::move(rest)});
  }
  return out;
}

Set Set::RecursiveDifference(const Set& other) const {
  Set out;
  std::set_difference(members_.begin(), members_.end(), other.members_.begin(),
                      other.members_.end(), std::back_inserter(out.members_));
  for (const Child& c : children_) {
    if (other.HasMember(c.element)) continue;
    const Set* o = other.ChildAt(c.element);
    Set rest = o ? c.set.RecursiveDifference(*o) : c.set;
    if (!rest.Empty()) out.children_.push_back(Child{c.element, std::move(rest)});
  }
  return out;
}

bool Set::operator==(const Set& other) const {
  if (members_ != other.members_) return false;
  // Empty children do not count.
  auto a = children_.begin(), b = other.children_.begin();
  for (;;) {
    while (a != children_.end() && a->set.Empty()) ++a;
    while (b != other.children_.end() && b->set.Empty()) ++b;
    if (a == children_.end() || b == other.children_.end()) {
      return a == children_.end() && b == other.children_.end();
    }
    if (!(a->element == b->element) || !(a->set == b->set)) return false;
    ++a, ++b;
  }
}

void Set::IterateFrom(Path& prefix, const std::function<void(const Path&)>& visit) const {
  for (const PathElement& m : members_) {
    prefix.push_back(m);
    visit(prefix);
    prefix.pop_back();
  }
  for (const Child& c : children_) {
    prefix.push_back(c.element);
    c.set.IterateFrom(prefix, visit);
    prefix.pop_back();
  }
}

void Set::Iterate(const std::function<void(const Path&)>& visit) const {
  Path prefix;
  IterateFrom(prefix, visit);
}

std::vector<Path> Set::Paths() const {
  std::vector<Path> out;
  Iterate([&](const Path& p) { out.push_back(p); });
  return out;
}

void Set::Emit(std::string& out, bool include_self) const {
  bool first = true;
  auto key = [&](const PathElement& e) {
    if (!first) out += ',';
    first = false;
    out += json(e.Serialize()).dump();
    out += ':';
  };
  if (include_self && !(members_.empty() && children_.empty())) {
    out += "\".\":{}";
    first = false;
  }
  auto m = members_.begin();
  auto c = children_.begin();
  while (m != members_.end() || c != children_.end()) {
    if (c == children_.end() || (m != members_.end() && *m < c->element)) {
      key(*m++);
      out += "{}";
    } else if (m == members_.end() || c->element < *m) {
      key(c->element);
      out += '{';
      c->set.Emit(out, false);
      out += '}';
      ++c;
    } else {
      key(c->element);
      out += '{';
      c->set.Emit(out, true);
      out += '}';
      ++m, ++c;
    }
  }
}

std::string Set::ToFieldsV1() const {
  std::string out = "{";
  Emit(out, false);
  return out + "}";
}

json Set::ToFieldsV1Json() const {
  json out = json::object();
  auto m = members_.begin();
  for (const Child& c : children_) {
    for (; m != members_.end() && *m < c.element; ++m) out[m->Serialize()] = json::object();
    json node = c.set.ToFieldsV1Json();
    if (m != members_.end() && *m == c.element) {
      if (!node.empty()) node["."] = json::object();
      ++m;
    }
    out[c.element.Serialize()] = std::move(node);
  }
  for (; m != members_.end(); ++m) out[m->Serialize()] = json::object();
  return out;
}

namespace {

// Reads one FieldsV1 node into `children`; true when the node itself is a member.
std::expected<bool, std::string> ReadNode(const json& node, Set& children) {
  if (!node.is_object()) return std::unexpected(std::string("expected an object"));
  bool member = false;
  bool any = false;
  for (const auto& [k, v] : node.items()) {
    if (k == ".") {
      member = true;
      continue;
    }
    if (k.size() >= 2 && k[1] == ':' && k[0] != 'f' && k[0] != 'k' && k[0] != 'v' && k[0] != 'i') {
      continue;  // an element type from the future
    }
    auto e = PathElement::Parse(k);
    if (!e) return std::unexpected("parsing key as path element: " + e.error());
    Set grandchildren;
    auto child_member = ReadNode(v, grandchildren);
    if (!child_member) return std::unexpected(child_member.error());
    if (*child_member) children.InsertMember(*e);
    if (!grandchildren.members().empty() || !grandchildren.children().empty()) {
      children.DescendInto(*e) = std::move(grandchildren);
    }
    any = true;
  }
  return member || !any;
}

}  // namespace

std::expected<Set, std::string> Set::FromFieldsV1(const json& fields) {
  Set out;
  if (fields.is_null()) return out;
  auto r = ReadNode(fields, out);
  if (!r) return std::unexpected(r.error());
  return out;
}

}  // namespace apimachinery::fieldpath
