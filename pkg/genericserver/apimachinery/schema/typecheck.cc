#include "pkg/genericserver/apimachinery/schema/typecheck.h"

#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/schema/go_types.h"
#include "pkg/genericserver/apimachinery/schema/go_values.h"

// How upstream decodes (sigs.k8s.io/json, Go's encoding/json with case-sensitive keys):
//  - A value of the wrong JSON kind is skipped and remembered as an UnmarshalTypeError;
//    decoding goes on, and the first one remembered is reported at the end.
//  - A type with its own UnmarshalJSON (metav1.Time, MicroTime, intstr.IntOrString,
//    resource.Quantity) returns its error, which stops decoding at once: such an error wins
//    over any remembered one.
//  - The error names the innermost struct whose field was being decoded and the JSON names
//    of the fields from the root to it (map keys and array indexes are not in the path).
//    Nested UnmarshalTypeErrors from the custom decoders (IntOrString's int32, Time's
//    string) get the same struct and path.
//  - null is accepted everywhere; fields the schema does not know are not looked at (they
//    are dropped elsewhere).
// Go meets the fields in document order; nlohmann's objects keep them sorted by key, so
// "first" here is first in key order.

namespace apimachinery::schema {

using nlohmann::json;

namespace {

constexpr std::string_view kRefPrefix = "#/components/schemas/";
constexpr std::string_view kQuantity = "io.k8s.apimachinery.pkg.api.resource.Quantity";
constexpr std::string_view kIntOrString = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
constexpr std::string_view kTime = "io.k8s.apimachinery.pkg.apis.meta.v1.Time";
constexpr std::string_view kMicroTime = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime";

// Types whose UnmarshalJSON keeps any JSON value as it is.
constexpr std::string_view kAnyValue[] = {
    "io.k8s.apimachinery.pkg.runtime.RawExtension",
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray",
};

// A schema node and the schema name ("$ref" target) it was reached through, if any.
struct Node {
  const json* schema = nullptr;
  std::string_view name;
  std::string_view go_struct = {};  // the Go struct's name when it is not the schema's
};

// Follows "$ref" and single-element "allOf" wrappers, remembering the last name.
Node Follow(const json& start, std::string_view name, const json& components) {
  const json* n = &start;
  for (int depth = 0; depth < 16; ++depth) {
    if (!n->is_object()) return {};
    // One pass over the (few) members.
    const json* ref = nullptr;
    const json* all = nullptr;
    bool properties = false;
    for (auto it = n->begin(); it != n->end(); ++it) {
      const std::string& key = it.key();
      if (key == "$ref") {
        ref = &it.value();
      } else if (key == "allOf") {
        all = &it.value();
      } else if (key == "properties") {
        properties = true;
      }
    }
    if (ref && ref->is_string()) {
      const std::string_view target = ref->get_ref<const std::string&>();
      if (!target.starts_with(kRefPrefix)) return {};
      auto it = components.find(target.substr(kRefPrefix.size()));
      if (it == components.end()) return {};
      n = &*it;
      name = it.key();
      continue;
    }
    if (all && all->is_array() && all->size() == 1 && !properties) {
      n = &(*all)[0];
      continue;
    }
    return {n, name};
  }
  return {};
}

// What the walk needs of a schema node, read in one pass over its members.
struct Shape {
  std::string_view type;
  std::string_view format;
  const json* properties = nullptr;  // an object
  const json* additional = nullptr;  // additionalProperties when it is a schema
  const json* items = nullptr;
  bool preserve_unknown = false;  // x-kubernetes-preserve-unknown-fields: true
  bool int_or_string = false;     // x-kubernetes-int-or-string: true
};

Shape ShapeOf(const json& s) {
  Shape shape;
  for (auto it = s.begin(); it != s.end(); ++it) {
    const std::string& key = it.key();
    const json& v = it.value();
    if (key == "type") {
      if (v.is_string()) shape.type = v.get_ref<const std::string&>();
    } else if (key == "format") {
      if (v.is_string()) shape.format = v.get_ref<const std::string&>();
    } else if (key == "properties") {
      if (v.is_object()) shape.properties = &v;
    } else if (key == "additionalProperties") {
      if (v.is_object()) shape.additional = &v;
    } else if (key == "items") {
      shape.items = &v;
    } else if (key == "x-kubernetes-preserve-unknown-fields") {
      shape.preserve_unknown = v.is_boolean() && v.get<bool>();
    } else if (key == "x-kubernetes-int-or-string") {
      shape.int_or_string = v.is_boolean() && v.get<bool>();
    }
  }
  if (shape.type.empty()) {
    if (shape.properties || shape.additional) {
      shape.type = "object";
    } else if (shape.items) {
      shape.type = "array";
    }
  }
  return shape;
}

// "io.k8s.api.core.v1.ConfigMap" -> "ConfigMap" (reflect.Type.Name()).
std::string_view ShortName(std::string_view name) {
  const size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

// "io.k8s.api.core.v1.ConfigMap" -> "v1.ConfigMap" (reflect.Type.String(): package name
// and type name).
std::string_view QualifiedName(std::string_view name) {
  const size_t last = name.rfind('.');
  if (last == std::string_view::npos || last == 0) return name;
  const size_t before = name.rfind('.', last - 1);
  return before == std::string_view::npos ? name : name.substr(before + 1);
}

// The word Go's decoder uses for a JSON value's kind.
std::string_view Word(const json& v) {
  switch (v.type()) {
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "bool";
    case json::value_t::array:
      return "array";
    case json::value_t::object:
      return "object";
    case json::value_t::null:
      return "null";
    default:
      return "number";
  }
}

// The number as text, for "number 1.5". Go prints the literal as it was written; integers
// come out the same, floats in nlohmann's shortest round-trip form ("1.5", "1.0").
std::string NumberText(const json& v) { return v.dump(); }

// Whether an integral JSON number fits [lo, hi].
bool IntegerIn(const json& v, int64_t lo, int64_t hi) {
  if (v.is_number_unsigned()) {
    return v.get<uint64_t>() <= static_cast<uint64_t>(hi);
  }
  if (v.is_number_integer()) {
    const int64_t n = v.get<int64_t>();
    return n >= lo && n <= hi;
  }
  return false;  // floats never parse as integers (ParseInt rejects "1.0" and "1e3")
}

// Where in the schemas a value's Go type comes from: a property of a named schema (through
// which named Go types are found) and how many array/map levels below it.
struct TypeRef {
  std::string_view holder;  // schema name of the struct that has the property
  std::string_view property;
  int depth = 0;
};

class Checker {
 public:
  explicit Checker(const json& components) : components_(components) {}

  // False once a custom decoder failed: upstream stops there.
  bool Walk(json& v, const Node& node, const TypeRef& ref);

  std::optional<std::string> Result() {
    if (hard_) return std::move(hard_);
    return std::move(soft_);
  }

 private:
  std::string Message(std::string_view value, std::string_view type) const {
    std::string out = "json: cannot unmarshal ";
    out += value;
    if (struct_.empty() && path_.empty()) {
      out += " into Go value of type ";
    } else {
      out += " into Go struct field ";
      out += struct_;
      out += '.';
      for (size_t i = 0; i < path_.size(); ++i) {
        if (i) out += '.';
        out += path_[i];
      }
      out += " of type ";
    }
    out += type;
    return out;
  }

  // An UnmarshalTypeError: remembered if it is the first, and decoding goes on.
  bool Mismatch(std::string_view value, const Node& node, const TypeRef& ref) {
    if (!soft_) soft_ = Message(value, TypeName(node, ref));
    return true;
  }
  bool MismatchOf(std::string_view value, std::string_view go_type) {
    if (!soft_) soft_ = Message(value, go_type);
    return true;
  }
  // An error returned by a custom UnmarshalJSON: decoding stops.
  bool Fail(std::string message) {
    hard_ = std::move(message);
    return false;
  }

  std::string TypeName(const Node& node, const TypeRef& ref) const;

  bool WalkObject(json& v, const Node& node, const Shape& shape, const TypeRef& ref);
  bool WalkBytes(const json& v, const Node& node, const TypeRef& ref);

  const json& components_;
  std::string_view struct_;             // Go name of the struct whose field is decoded
  std::vector<std::string_view> path_;  // JSON names of the fields from the root
  std::optional<std::string> soft_;
  std::optional<std::string> hard_;
};

std::string Checker::TypeName(const Node& node, const TypeRef& ref) const {
  if (!ref.holder.empty()) {
    if (const GoFieldType* named = NamedGoFieldType(ref.holder, ref.property)) {
      const std::string_view level = ref.depth == 0   ? named->type
                                     : ref.depth == 1 ? named->elem
                                     : ref.depth == 2 ? named->elem_elem
                                                      : std::string_view();
      if (!level.empty()) return std::string(level);
    }
  }
  if (!node.name.empty()) return std::string(QualifiedName(node.name));
  if (!node.schema) return "interface {}";
  const Shape shape = ShapeOf(*node.schema);
  const TypeRef below{ref.holder, ref.property, ref.depth + 1};
  const std::string_view type = shape.type;
  const std::string_view format = shape.format;
  if (type == "string") return format == "byte" ? "[]uint8" : "string";
  if (type == "integer") {
    if (format == "int32") return "int32";
    if (format == "int64") return "int64";
    return "int";
  }
  if (type == "number") return format == "float" ? "float32" : "float64";
  if (type == "boolean") return "bool";
  if (type == "array") {
    if (!shape.items) return "[]interface {}";
    return "[]" + TypeName(Follow(*shape.items, {}, components_), below);
  }
  if (shape.additional) {
    return "map[string]" + TypeName(Follow(*shape.additional, {}, components_), below);
  }
  if (type == "object" && !shape.properties) return "map[string]interface {}";
  return "interface {}";
}

bool Checker::Walk(json& v, const Node& node, const TypeRef& ref) {
  if (v.is_null() || !node.schema) return true;

  // Types with their own decoders.
  if (!node.name.empty()) {
    if (node.name == kTime || node.name == kMicroTime) {
      if (!v.is_string()) return Fail(Message(Word(v), "string"));
      const std::string_view layout = node.name == kTime ? kRFC3339 : kRFC3339Micro;
      if (auto err = GoTimeParseError(layout, v.get_ref<const std::string&>())) {
        return Fail(std::move(*err));
      }
      // Stored as upstream re-encodes the Go time: in UTC, to the second or microsecond.
      if (auto canonical = GoTimeCanonical(layout, v.get_ref<const std::string&>())) {
        v = std::move(*canonical);
      }
      return true;
    }
    if (node.name == kQuantity) {
      // Quantity.UnmarshalJSON parses the raw text; only a string loses its quotes. Every
      // JSON number is a valid quantity. Stored in its canonical form, as upstream
      // re-encodes it.
      const std::string raw = v.is_string() ? v.get<std::string>() : v.dump();
      if (!v.is_number()) {
        if (auto err = QuantityParseError(raw)) return Fail(std::move(*err));
      }
      if (auto canonical = QuantityCanonical(raw)) v = std::move(*canonical);
      return true;
    }
    for (std::string_view any : kAnyValue) {
      if (node.name == any) return true;
    }
  }
  const Shape shape = ShapeOf(*node.schema);
  if (node.name == kIntOrString || shape.format == "int-or-string" || shape.int_or_string) {
    // A string is kept as the string; anything else is decoded into the int32.
    if (v.is_string()) return true;
    if (v.is_number()) {
      if (IntegerIn(v, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max())) {
        return true;
      }
      return Fail(Message("number " + NumberText(v), "int32"));
    }
    return Fail(Message(Word(v), "int32"));
  }
  if (shape.preserve_unknown) return true;

  const std::string_view type = shape.type;
  if (type == "object") return WalkObject(v, node, shape, ref);
  if (type == "array") {
    if (!v.is_array()) return Mismatch(Word(v), node, ref);
    if (!shape.items) return true;
    const Node item = Follow(*shape.items, {}, components_);
    const TypeRef below{ref.holder, ref.property, ref.depth + 1};
    for (json& e : v) {
      if (!Walk(e, item, below)) return false;
    }
    return true;
  }
  if (type == "string") {
    if (shape.format == "byte") return WalkBytes(v, node, ref);
    return v.is_string() ? true : Mismatch(Word(v), node, ref);
  }
  if (type == "boolean") return v.is_boolean() ? true : Mismatch(Word(v), node, ref);
  if (type == "number") return v.is_number() ? true : Mismatch(Word(v), node, ref);
  if (type == "integer") {
    if (!v.is_number()) return Mismatch(Word(v), node, ref);
    const bool fits = shape.format == "int32" ? IntegerIn(v, std::numeric_limits<int32_t>::min(),
                                                          std::numeric_limits<int32_t>::max())
                                              : IntegerIn(v, std::numeric_limits<int64_t>::min(),
                                                          std::numeric_limits<int64_t>::max());
    return fits ? true : Mismatch("number " + NumberText(v), node, ref);
  }
  return true;  // no type: anything goes
}

bool Checker::WalkObject(json& v, const Node& node, const Shape& shape, const TypeRef& ref) {
  if (!v.is_object()) return Mismatch(Word(v), node, ref);
  if (const json* props = shape.properties) {
    // A struct: its known fields are decoded with the struct and the field in the context;
    // unknown fields are dropped elsewhere.
    const std::string_view holder = node.name;
    const std::string_view outer = struct_;
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string& key = it.key();
      auto prop = props->find(key);
      if (prop == props->end()) continue;
      if (!holder.empty()) struct_ = node.go_struct.empty() ? ShortName(holder) : node.go_struct;
      path_.push_back(key);
      Node child = Follow(*prop, {}, components_);
      if (HasRenamedStruct(child.name)) {
        if (const GoFieldType* named = NamedGoFieldType(holder, key)) {
          child.go_struct = named->go_struct;
        }
      }
      if (!Walk(it.value(), child, TypeRef{holder, key, 0})) return false;
      path_.pop_back();
      struct_ = outer;
    }
    return true;
  }
  if (shape.additional) {
    // A map: its values are decoded in the context of the field that holds it.
    const Node value = Follow(*shape.additional, {}, components_);
    const TypeRef below{ref.holder, ref.property, ref.depth + 1};
    for (json& e : v) {
      if (!Walk(e, value, below)) return false;
    }
  }
  return true;  // a struct without fields, or a free-form object
}

// A []byte: a base64 string (its content is checked elsewhere), or, as Go also accepts, an
// array of numbers 0-255.
bool Checker::WalkBytes(const json& v, const Node& node, const TypeRef& ref) {
  if (v.is_string()) return true;
  if (!v.is_array()) return Mismatch(Word(v), node, ref);
  for (const json& e : v) {
    if (e.is_null()) continue;
    if (!e.is_number()) {
      MismatchOf(Word(e), "uint8");
    } else if (!IntegerIn(e, 0, 255)) {
      MismatchOf("number " + NumberText(e), "uint8");
    }
  }
  return true;
}

}  // namespace

std::optional<std::string> CheckTypes(json& object, const json& components,
                                      const std::string& root) {
  auto it = components.find(root);
  if (it == components.end()) return std::nullopt;
  const Node node = Follow(*it, it.key(), components);
  Checker checker(components);
  checker.Walk(object, node, TypeRef{});
  return checker.Result();
}

}  // namespace apimachinery::schema
