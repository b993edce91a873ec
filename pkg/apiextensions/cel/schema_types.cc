#include "pkg/apiextensions/cel/schema_types.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/cel/functions.h"
#include "pkg/apiextensions/cel/limits.h"
#include "pkg/apiextensions/cel/rules_internal.h"

namespace apiextensions::cel {

using nlohmann::json;

namespace {

const std::set<std::string, std::less<>>& CelReserved() {
  static const std::set<std::string, std::less<>> words = {
      "true",     "false",   "null",      "in",       "as",  "break",  "const",
      "continue", "else",    "for",       "function", "if",  "import", "let",
      "loop",     "package", "namespace", "return",   "var", "void",   "while"};
  return words;
}

using rules_internal::BoolOr;
using rules_internal::StringOr;

// A fresh type of the given kind with its sizes (schema nodes do not share types: each has
// the sizes of its own schema).
std::shared_ptr<Type> SizedType(TypeKind kind, int64_t max_elements, int64_t min_size) {
  auto t = std::make_shared<Type>();
  t->kind = kind;
  t->max_elements = max_elements;
  t->min_serialized_size = min_size;
  return t;
}

int64_t ZeroIfNegative(int64_t v) { return v < 0 ? 0 : v; }

// An integer keyword (maxLength, maxItems, maxProperties), when set.
std::optional<int64_t> IntOf(const json& s, const char* key) {
  auto it = s.find(key);
  if (it == s.end() || !it->is_number()) return std::nullopt;
  if (it->is_number_unsigned()) {
    uint64_t u = it->get<uint64_t>();
    return u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(u);
  }
  if (it->is_number_integer()) return it->get<int64_t>();
  return static_cast<int64_t>(it->get<double>());
}

// maxLength counts code points; a code point takes up to 4 bytes.
int64_t FromMaxLength(int64_t max_length) {
  return static_cast<int64_t>(static_cast<uint64_t>(ZeroIfNegative(max_length)) * 4);
}

// The longest string a request can hold ("" excluded).
constexpr int64_t kMaxStringLengthPerRequest = kMaxRequestSizeBytes - 2;

// The byte length of the longest string enum value.
int64_t MaxEnumLength(const json& s) {
  int64_t max = 0;
  auto e = s.find("enum");
  if (e == s.end() || !e->is_array()) return 0;
  for (const auto& v : *e) {
    if (v.is_string())
      max = std::max(max, static_cast<int64_t>(v.get_ref<const std::string&>().size()));
  }
  return max;
}

bool HasEnum(const json& s) {
  auto e = s.find("enum");
  return e != s.end() && e->is_array() && !e->empty();
}

TypePtr StringTypeOf(const json& s) {
  std::string format = StringOr(s, "format");
  std::optional<int64_t> max_length = IntOf(s, "maxLength");
  if (format == "byte") {
    return SizedType(TypeKind::kBytes,
                     max_length ? ZeroIfNegative(*max_length) : kMaxStringLengthPerRequest,
                     kMinStringSize);
  }
  // The formatted strings are bounded by their format, whatever maxLength says.
  if (format == "duration") {
    return SizedType(TypeKind::kDuration, kMaxDurationSizeJSON, kMinDurationSizeJSON);
  }
  if (format == "date-time") {
    return SizedType(TypeKind::kTimestamp, kMaxDatetimeSizeJSON, kMinDatetimeSizeJSON);
  }
  if (format == "date") {
    auto t = SizedType(TypeKind::kTimestamp, kJSONDateSize, kJSONDateSize);
    t->name = "date";
    return t;
  }
  int64_t max = kMaxStringLengthPerRequest;
  if (max_length) {
    max = FromMaxLength(*max_length);
  } else if (HasEnum(s)) {
    max = MaxEnumLength(s);
  }
  return SizedType(TypeKind::kString, max, kMinStringSize);
}

bool HasDefault(const json& s) {
  auto d = s.find("default");
  return d != s.end() && !d->is_null();
}

bool IsStringProp(const json& props, const char* name) {
  auto it = props.find(name);
  return it != props.end() && it->is_object() && StringOr(*it, "type") == "string";
}

std::optional<std::string> Base64Decode(std::string_view in) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (in.size() % 4 != 0) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < in.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      char c = in[i + k];
      if (c == '=' && i + 4 == in.size() && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      if (pad > 0) return std::nullopt;
      v[k] = val(c);
      if (v[k] < 0) return std::nullopt;
    }
    uint32_t n = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    out.push_back(static_cast<char>((n >> 16) & 0xFF));
    if (pad < 2) out.push_back(static_cast<char>((n >> 8) & 0xFF));
    if (pad < 1) out.push_back(static_cast<char>(n & 0xFF));
  }
  return out;
}

Value Generic(const json& j) { return JsonToValue(j, nullptr); }

}  // namespace

std::optional<std::string> EscapeProperty(std::string_view ident) {
  if (ident.empty() || (ident[0] >= '0' && ident[0] <= '9')) return std::nullopt;
  if (CelReserved().count(ident) != 0) return "__" + std::string(ident) + "__";
  std::string out;
  for (size_t i = 0; i < ident.size(); ++i) {
    char c = ident[i];
    if (c == '_' && i + 1 < ident.size() && ident[i + 1] == '_') {
      out += "__underscores__";
      ++i;
    } else if (c == '.') {
      out += "__dot__";
    } else if (c == '-') {
      out += "__dash__";
    } else if (c == '/') {
      out += "__slash__";
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      out.push_back(c);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

TypePtr SchemaType(const json& s, bool resource_root) {
  if (!s.is_object()) return nullptr;
  if (BoolOr(s, "x-kubernetes-int-or-string")) {
    std::optional<int64_t> max_length = IntOf(s, "maxLength");
    return SizedType(TypeKind::kDyn,
                     max_length ? FromMaxLength(*max_length) : kMaxStringLengthPerRequest,
                     kMinDynSize);
  }
  std::string type = StringOr(s, "type");
  if (type == "array") {
    auto items = s.find("items");
    if (items == s.end() || !items->is_object()) return nullptr;
    TypePtr elem = SchemaType(*items, BoolOr(*items, "x-kubernetes-embedded-resource"));
    if (!elem) return nullptr;
    std::optional<int64_t> max_items = IntOf(s, "maxItems");
    // Without maxItems: as many of the smallest items as a request holds ("[" and "]" aside,
    // each with a comma).
    auto t = SizedType(TypeKind::kList,
                       max_items ? ZeroIfNegative(*max_items)
                                 : (kMaxRequestSizeBytes - 2) / (elem->min_serialized_size + 1),
                       2);
    t->elem = elem;
    std::string lt = StringOr(s, "x-kubernetes-list-type");
    if (lt == "set") t->list_type = ListType::kSet;
    if (lt == "map") {
      t->list_type = ListType::kMap;
      auto keys = s.find("x-kubernetes-list-map-keys");
      if (keys != s.end() && keys->is_array()) {
        for (const auto& k : *keys) {
          if (k.is_string()) t->map_keys.push_back(k.get<std::string>());
        }
      }
    }
    return t;
  }
  if (type == "object") {
    auto ap = s.find("additionalProperties");
    if (ap != s.end() && ap->is_object()) {
      TypePtr elem = SchemaType(*ap, BoolOr(*ap, "x-kubernetes-embedded-resource"));
      if (!elem) return nullptr;
      std::optional<int64_t> max_props = IntOf(s, "maxProperties");
      // Without maxProperties: as many of the smallest entries ("":v,) as a request holds.
      auto t = SizedType(TypeKind::kMap,
                         max_props ? ZeroIfNegative(*max_props)
                                   : (kMaxRequestSizeBytes - 2) / (elem->min_serialized_size + 6),
                         2);
      t->key = StringType();  // keys have no size estimate: upstream's shared string type
      t->elem = elem;
      return t;
    }
    auto t = SizedType(TypeKind::kObject, 0, 2);
    // Property name -> its type and whether a default fills it in (for the smallest size).
    std::map<std::string, std::pair<TypePtr, bool>> members;
    auto props = s.find("properties");
    if (props != s.end() && props->is_object()) {
      for (const auto& [name, prop] : props->items()) {
        TypePtr ft = SchemaType(prop, BoolOr(prop, "x-kubernetes-embedded-resource"));
        if (ft) members[name] = {ft, HasDefault(prop)};
      }
    }
    if (resource_root) {
      // Upstream's WithTypeAndObjectMeta: kept as is when the schema already declares all of
      // kind, apiVersion, metadata.name and metadata.generateName as strings.
      bool complete = false;
      if (props != s.end() && props->is_object() && IsStringProp(*props, "kind") &&
          IsStringProp(*props, "apiVersion")) {
        auto meta = props->find("metadata");
        if (meta != props->end() && meta->is_object() && StringOr(*meta, "type") == "object") {
          auto mp = meta->find("properties");
          complete = mp != meta->end() && mp->is_object() && IsStringProp(*mp, "name") &&
                     IsStringProp(*mp, "generateName");
        }
      }
      if (!complete) {
        auto plain = [] {
          return SizedType(TypeKind::kString, kMaxStringLengthPerRequest, kMinStringSize);
        };
        auto meta = SizedType(TypeKind::kObject, 0, 2);
        meta->fields["name"] = FieldType{"name", plain()};
        meta->fields["generateName"] = FieldType{"generateName", plain()};
        members["kind"] = {plain(), false};
        members["apiVersion"] = {plain(), false};
        members["metadata"] = {meta, false};
      }
    }
    std::set<std::string> required;
    if (auto req = s.find("required"); req != s.end() && req->is_array()) {
      for (const auto& r : *req) {
        if (r.is_string()) required.insert(r.get<std::string>());
      }
    }
    for (const auto& [name, member] : members) {
      const auto& [ft, has_default] = member;
      if (auto esc = EscapeProperty(name)) t->fields[*esc] = FieldType{name, ft};
      // "{}" plus each required property a default does not fill in: "name":value,
      if (required.contains(name) && !has_default) {
        t->min_serialized_size += static_cast<int64_t>(name.size()) + ft->min_serialized_size + 4;
      }
    }
    return t;
  }
  if (resource_root && type.empty()) return nullptr;
  if (type == "string") return StringTypeOf(s);
  if (type == "boolean") return SizedType(TypeKind::kBool, 0, kMinBoolSize);
  if (type == "number") return SizedType(TypeKind::kDouble, 0, kMinNumberSize);
  if (type == "integer") return SizedType(TypeKind::kInt, 0, kMinNumberSize);
  return nullptr;
}

Value JsonToValue(const json& j, const TypePtr& t) {
  if (j.is_null()) return Value::Null();
  TypeKind k = t ? t->kind : TypeKind::kDyn;
  switch (k) {
    case TypeKind::kBool:
      if (j.is_boolean()) return Value::Bool(j.get<bool>());
      break;
    case TypeKind::kInt:
      if (j.is_number_integer()) {
        if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) break;
        return Value::Int(j.get<int64_t>());
      }
      if (j.is_number_float()) {
        double d = j.get<double>();
        if (d == std::trunc(d) && d >= -9.2e18 && d <= 9.2e18)
          return Value::Int(static_cast<int64_t>(d));
        return Value::Double(d);
      }
      break;
    case TypeKind::kDouble:
      if (j.is_number()) return Value::Double(j.get<double>());
      break;
    case TypeKind::kString:
      if (j.is_string()) return Value::String(j.get<std::string>());
      break;
    case TypeKind::kBytes:
      if (j.is_string()) {
        auto decoded = Base64Decode(j.get_ref<const std::string&>());
        if (!decoded) return Value::Error("illegal base64 data in byte-formatted string");
        return Value::Bytes(*decoded);
      }
      break;
    case TypeKind::kDuration:
      if (j.is_string()) return ParseDuration(j.get_ref<const std::string&>());
      break;
    case TypeKind::kTimestamp:
      if (j.is_string()) {
        const std::string& s = j.get_ref<const std::string&>();
        if (t->name == "date") return ParseTimestamp(s + "T00:00:00Z");
        return ParseTimestamp(s);
      }
      break;
    case TypeKind::kList:
      if (j.is_array()) {
        std::vector<Value> items;
        items.reserve(j.size());
        for (const auto& e : j) items.push_back(JsonToValue(e, t->elem));
        return Value::List(std::move(items), t->list_type, t->map_keys);
      }
      break;
    case TypeKind::kMap:
      if (j.is_object()) {
        std::vector<std::pair<Value, Value>> entries;
        entries.reserve(j.size());
        for (const auto& [key, v] : j.items())
          entries.emplace_back(Value::String(key), JsonToValue(v, t->elem));
        return Value::Map(std::move(entries));
      }
      break;
    case TypeKind::kObject:
      if (j.is_object()) {
        std::vector<std::pair<Value, Value>> entries;
        for (const auto& [cel_name, field] : t->fields) {
          auto it = j.find(field.json_name);
          if (it == j.end()) continue;
          entries.emplace_back(Value::String(cel_name), JsonToValue(*it, field.type));
        }
        return Value::Map(std::move(entries), true);
      }
      break;
    default:
      break;
  }
  // dyn, or a value that does not have its schema's type: by the JSON kind.
  if (j.is_boolean()) return Value::Bool(j.get<bool>());
  if (j.is_number_unsigned()) {
    auto u = j.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return Value::Uint(u);
    return Value::Int(static_cast<int64_t>(u));
  }
  if (j.is_number_integer()) return Value::Int(j.get<int64_t>());
  if (j.is_number_float()) return Value::Double(j.get<double>());
  if (j.is_string()) return Value::String(j.get<std::string>());
  if (j.is_array()) {
    std::vector<Value> items;
    for (const auto& e : j) items.push_back(Generic(e));
    return Value::List(std::move(items));
  }
  if (j.is_object()) {
    std::vector<std::pair<Value, Value>> entries;
    for (const auto& [key, v] : j.items()) entries.emplace_back(Value::String(key), Generic(v));
    return Value::Map(std::move(entries));
  }
  return Value::Null();
}

}  // namespace apiextensions::cel
