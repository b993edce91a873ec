#include "pkg/apiextensions/schema/list_type.h"

#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/schema/schema_node.h"
#include "pkg/apiextensions/schema/values.h"

namespace apiextensions::schema {

namespace {

using nlohmann::json;
namespace v = apimachinery::validation;

// The identity validateListSet gives an item: scalars by Go type and value (they are map keys
// of type interface{}), objects and arrays by their JSON encoding.
std::string SetKey(const json& x) {
  switch (KindOf(x)) {
    case GoKind::kNull:
      return "n";
    case GoKind::kBool:
      return x.get<bool>() ? "b1" : "b0";
    case GoKind::kInt64:
      return "i" + std::to_string(AsInt64(x));
    case GoKind::kFloat64:
      return "f" + GoJSONFloat(AsFloat64(x));
    case GoKind::kString:
      return "s" + x.get<std::string>();
    case GoKind::kSlice:
    case GoKind::kMap:
      return "j" + GoJSONMarshal(x);
  }
  return "n";
}

constexpr const char* kUnspecified = "u";  // unspecifiedKeyValue{}

// The indices of the second appearance of each repeated key.
std::vector<size_t> NonUnique(const std::vector<std::string>& keys) {
  std::vector<size_t> out;
  if (keys.size() <= 1) return out;
  std::unordered_map<std::string, int> seen;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (++seen[keys[i]] == 2) out.push_back(i);
  }
  return out;
}

std::string Child(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "." + name;
}
std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

void Object(const std::string& path, const json* s, const json& obj, FieldErrors& errs);

void Value(const std::string& path, const json* s, const json& x, FieldErrors& errs);

void ListMap(const std::string& path, const json& s, const json& list, FieldErrors& errs) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_null() && !list[i].is_object()) {
      v::FieldError e =
          v::FieldInvalid(Index(path, i), "", "must be an object for an array of list-type map");
      SetBadValue(e, list[i]);
      errs.push_back(std::move(e));
      return;
    }
  }
  if (list.size() <= 1) return;
  std::vector<std::string> key_fields;
  if (auto it = s.find("x-kubernetes-list-map-keys"); it != s.end() && it->is_array()) {
    for (const json& k : *it) {
      if (k.is_string()) key_fields.push_back(k.get<std::string>());
    }
  }
  std::vector<std::string> keys;
  std::vector<json> shown;
  for (const json& item : list) {
    json key = json::object();
    if (key_fields.size() == 1) {
      auto found = item.is_object() ? item.find(key_fields[0]) : item.end();
      if (!item.is_object() || found == item.end()) {
        keys.push_back(kUnspecified);
      } else {
        keys.push_back(SetKey(*found));
        key[key_fields[0]] = *found;
      }
    } else {
      if (item.is_object()) {
        for (const std::string& field : key_fields) {
          if (auto found = item.find(field); found != item.end()) key[field] = *found;
        }
      }
      keys.push_back(SetKey(key));
    }
    shown.push_back(std::move(key));
  }
  for (size_t i : NonUnique(keys)) {
    v::FieldError e = v::FieldDuplicate(Index(path, i), "");
    SetBadValue(e, shown[i]);
    errs.push_back(std::move(e));
  }
}

void Array(const std::string& path, const json& s, const json& list, FieldErrors& errs) {
  const std::string list_type = node::String(&s, "x-kubernetes-list-type");
  if (list_type == "set") {
    std::vector<std::string> keys;
    for (const json& item : list) keys.push_back(SetKey(item));
    for (size_t i : NonUnique(keys)) {
      v::FieldError e = v::FieldDuplicate(Index(path, i), "");
      SetBadValue(e, list[i]);
      errs.push_back(std::move(e));
    }
  } else if (list_type == "map") {
    ListMap(path, s, list, errs);
  }
  if (const json* items = node::Items(&s)) {
    for (size_t i = 0; i < list.size(); ++i) Value(Index(path, i), items, list[i], errs);
  }
}

void Value(const std::string& path, const json* s, const json& x, FieldErrors& errs) {
  if (x.is_array()) {
    if (s) Array(path, *s, x, errs);
  } else if (x.is_object()) {
    Object(path, s, x, errs);
  }
}

void Object(const std::string& path, const json* s, const json& obj, FieldErrors& errs) {
  if (!s || !obj.is_object()) return;
  const node::Additional additional = node::AdditionalProperties(s);
  if (additional.schema) {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      Value(path + "[" + it.key() + "]", additional.schema, it.value(), errs);
    }
  }
  if (auto props = s->find("properties"); props != s->end() && props->is_object()) {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (const json* prop = node::Property(s, it.key())) {
        Value(Child(path, it.key()), prop, it.value(), errs);
      }
    }
  }
}

}  // namespace

FieldErrors ValidateListSetsAndMaps(const json& schema, const json& object) {
  FieldErrors errs;
  Object("", &schema, object, errs);
  return errs;
}

}  // namespace apiextensions::schema
