#include "pkg/genericserver/apimachinery/fieldpath/path_element.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace apimachinery::fieldpath {

using nlohmann::json;

namespace {

int Sign(auto a, auto b) { return a < b ? -1 : (b < a ? 1 : 0); }

// The rank of a value's type in upstream's order.
int Rank(const json& v) {
  if (v.is_number()) return 0;
  if (v.is_string()) return 1;
  if (v.is_boolean()) return 2;
  if (v.is_array()) return 3;
  if (v.is_object()) return 4;
  return 5;  // null
}

// A value as Go's %v prints the scalars of upstream's value.ToString.
std::string ValueString(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_string()) return v.dump();
  if (v.is_number_float()) {
    double d = v.get<double>();
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", d);
    return buf;
  }
  if (v.is_array()) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + ValueString(v[i]);
    return out + "]";
  }
  if (v.is_object()) {
    std::string out;
    for (const auto& [k, item] : v.items()) out += k + "=" + ValueString(item);
    return out;
  }
  return v.dump();
}

}  // namespace

int CompareValues(const json& a, const json& b) {
  const int ra = Rank(a), rb = Rank(b);
  if (ra != rb) return Sign(ra, rb);
  switch (ra) {
    case 0:
      if (a.is_number_float() || b.is_number_float()) {
        return Sign(a.get<double>(), b.get<double>());
      }
      if (a.is_number_unsigned() && b.is_number_unsigned()) {
        return Sign(a.get<uint64_t>(), b.get<uint64_t>());
      }
      return Sign(a.get<int64_t>(), b.get<int64_t>());
    case 1:
      return a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>()) < 0
                 ? -1
                 : (a == b ? 0 : 1);
    case 2:
      return Sign(a.get<bool>(), b.get<bool>());
    case 3:
      for (size_t i = 0;; ++i) {
        if (i >= a.size() || i >= b.size()) return Sign(a.size(), b.size());
        if (int c = CompareValues(a[i], b[i])) return c;
      }
    case 4: {
      // Maps compare by their sorted entries, name then value.
      auto ia = a.begin(), ib = b.begin();
      for (;; ++ia, ++ib) {
        if (ia == a.end() || ib == b.end()) return Sign(a.size(), b.size());
        if (int c = ia.key().compare(ib.key())) return c < 0 ? -1 : 1;
        if (int c = CompareValues(*ia, *ib)) return c;
      }
    }
    default:
      return 0;
  }
}

PathElement PathElement::Field(std::string name) {
  PathElement e;
  e.kind = Kind::kField;
  e.name = std::move(name);
  return e;
}

PathElement PathElement::Key(std::vector<std::pair<std::string, json>> keys) {
  PathElement e;
  e.kind = Kind::kKey;
  std::stable_sort(keys.begin(), keys.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  e.keys = std::move(keys);
  return e;
}

PathElement PathElement::Value(json value) {
  PathElement e;
  e.kind = Kind::kValue;
  e.value = std::move(value);
  return e;
}

PathElement PathElement::Index(int64_t index) {
  PathElement e;
  e.kind = Kind::kIndex;
  e.index = index;
  return e;
}

int PathElement::Compare(const PathElement& other) const {
  if (kind != other.kind) return Sign(static_cast<int>(kind), static_cast<int>(other.kind));
  switch (kind) {
    case Kind::kField: {
      const int c = name.compare(other.name);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case Kind::kKey:
      for (size_t i = 0;; ++i) {
        if (i >= keys.size() || i >= other.keys.size()) {
          return Sign(keys.size(), other.keys.size());
        }
        if (int c = keys[i].first.compare(other.keys[i].first)) return c < 0 ? -1 : 1;
        if (int c = CompareValues(keys[i].second, other.keys[i].second)) return c;
      }
    case Kind::kValue:
      return CompareValues(value, other.value);
    case Kind::kIndex:
      return Sign(index, other.index);
  }
  return 0;
}

std::string PathElement::String() const {
  switch (kind) {
    case Kind::kField:
      return "." + name;
    case Kind::kKey: {
      std::string out = "[";
      for (size_t i = 0; i < keys.size(); ++i) {
        out += (i ? "," : "") + keys[i].first + "=" + ValueString(keys[i].second);
      }
      return out + "]";
    }
    case Kind::kValue:
      return "[=" + ValueString(value) + "]";
    case Kind::kIndex:
      return "[" + std::to_string(index) + "]";
  }
  return "{{invalid path element}}";
}

std::string PathElement::Serialize() const {
  switch (kind) {
    case Kind::kField:
      return "f:" + name;
    case Kind::kKey: {
      std::string out = "k:{";
      for (size_t i = 0; i < keys.size(); ++i) {
        out += (i ? "," : "") + json(keys[i].first).dump() + ":" + keys[i].second.dump();
      }
      return out + "}";
    }
    case Kind::kValue:
      return "v:" + value.dump();
    case Kind::kIndex:
      return "i:" + std::to_string(index);
  }
  return "";
}

std::expected<PathElement, std::string> PathElement::Parse(std::string_view text) {
  if (text.size() < 2)
    return std::unexpected("key must be 2 characters long: " + std::string(text));
  if (text[1] != ':') return std::unexpected("missing colon: " + std::string(text));
  const std::string_view rest = text.substr(2);
  switch (text[0]) {
    case 'f':
      return Field(std::string(rest));
    case 'v': {
      json v = json::parse(rest, nullptr, false);
      if (v.is_discarded()) return std::unexpected("invalid value: " + std::string(text));
      return Value(std::move(v));
    }
    case 'k': {
      json v = json::parse(rest, nullptr, false);
      if (!v.is_object()) return std::unexpected("invalid key: " + std::string(text));
      std::vector<std::pair<std::string, json>> keys;
      for (auto& [k, item] : v.items()) keys.emplace_back(k, item);
      return Key(std::move(keys));
    }
    case 'i': {
      int64_t index = 0;
      auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), index);
      if (ec != std::errc() || end != rest.data() + rest.size() || rest.empty()) {
        return std::unexpected("invalid index: " + std::string(text));
      }
      return Index(index);
    }
    default:
      return std::unexpected("unknown path element type: " + std::string(text));
  }
}

std::string PathString(const Path& path) {
  std::string out;
  for (const PathElement& e : path) out += e.String();
  return out;
}

}  // namespace apimachinery::fieldpath
