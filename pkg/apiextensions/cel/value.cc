#include "pkg/apiextensions/cel/value.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace apiextensions::cel {

const Value* MapData::FindString(std::string_view key) const {
  auto it = string_index.find(std::string(key));
  return it == string_index.end() ? nullptr : &entries[it->second].second;
}

Value Value::Bool(bool v) {
  Value r;
  r.kind = Kind::kBool;
  r.b = v;
  return r;
}
Value Value::Int(int64_t v) {
  Value r;
  r.kind = Kind::kInt;
  r.i = v;
  return r;
}
Value Value::Uint(uint64_t v) {
  Value r;
  r.kind = Kind::kUint;
  r.u = v;
  return r;
}
Value Value::Double(double v) {
  Value r;
  r.kind = Kind::kDouble;
  r.d = v;
  return r;
}
Value Value::String(std::string v) {
  Value r;
  r.kind = Kind::kString;
  r.s = std::make_shared<const std::string>(std::move(v));
  return r;
}
Value Value::Bytes(std::string v) {
  Value r = String(std::move(v));
  r.kind = Kind::kBytes;
  return r;
}
Value Value::TypeValue(std::string name) {
  Value r = String(std::move(name));
  r.kind = Kind::kType;
  return r;
}
Value Value::Duration(int64_t nanos) {
  Value r;
  r.kind = Kind::kDuration;
  r.i = nanos;
  return r;
}
Value Value::Timestamp(int64_t seconds, int32_t nanos) {
  Value r;
  r.kind = Kind::kTimestamp;
  r.i = seconds;
  r.nanos = nanos;
  return r;
}
Value Value::Error(std::string message) {
  Value r = String(std::move(message));
  r.kind = Kind::kError;
  return r;
}
Value Value::NoSuchOverload() { return Error("no such overload"); }
Value Value::List(std::vector<Value> items, ListType type, std::vector<std::string> map_keys) {
  Value r;
  r.kind = Kind::kList;
  auto data = std::make_shared<ListData>();
  data->items = std::move(items);
  data->list_type = type;
  data->map_keys = std::move(map_keys);
  r.list = std::move(data);
  return r;
}
Value Value::Map(std::vector<std::pair<Value, Value>> entries, bool object) {
  Value r;
  r.kind = object ? Kind::kObject : Kind::kMap;
  auto data = std::make_shared<MapData>();
  data->entries = std::move(entries);
  for (size_t i = 0; i < data->entries.size(); ++i) {
    if (data->entries[i].first.kind == Kind::kString) {
      data->string_index.emplace(data->entries[i].first.str(), i);
    }
  }
  r.map = std::move(data);
  return r;
}
Value Value::Optional(const Value* v) {
  Value r;
  r.kind = Kind::kOptional;
  auto data = std::make_shared<ListData>();
  if (v != nullptr) data->items.push_back(*v);
  r.list = std::move(data);
  return r;
}
Value Value::Quantity(std::string text, long double amount) {
  Value r = String(std::move(text));
  r.kind = Kind::kQuantity;
  r.q = amount;
  return r;
}
Value Value::Url(std::string text) {
  Value r = String(std::move(text));
  r.kind = Kind::kUrl;
  return r;
}
Value Value::IP(std::string canonical) {
  Value r = String(std::move(canonical));
  r.kind = Kind::kIP;
  return r;
}
Value Value::CIDR(std::string canonical) {
  Value r = String(std::move(canonical));
  r.kind = Kind::kCIDR;
  return r;
}

std::string TypeName(const Value& v) {
  switch (v.kind) {
    case Kind::kNull:
      return "null_type";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kUint:
      return "uint";
    case Kind::kDouble:
      return "double";
    case Kind::kString:
      return "string";
    case Kind::kBytes:
      return "bytes";
    case Kind::kList:
      return "list";
    case Kind::kMap:
      return "map";
    case Kind::kObject:
      return "object";
    case Kind::kType:
      return "type";
    case Kind::kDuration:
      return "google.protobuf.Duration";
    case Kind::kTimestamp:
      return "google.protobuf.Timestamp";
    case Kind::kQuantity:
      return "kubernetes.Quantity";
    case Kind::kUrl:
      return "kubernetes.URL";
    case Kind::kIP:
      return "net.IP";
    case Kind::kCIDR:
      return "net.CIDR";
    case Kind::kOptional:
      return "optional_type";
    case Kind::kError:
      return "error";
  }
  return "dyn";
}

namespace {

bool IsNumber(const Value& v) {
  return v.kind == Kind::kInt || v.kind == Kind::kUint || v.kind == Kind::kDouble;
}

// Compares numbers of any of the three kinds exactly; 2 when unordered (NaN).
int CompareNumbers(const Value& a, const Value& b) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  if (a.kind == b.kind) {
    if (a.kind == Kind::kInt) return cmp(a.i, b.i);
    if (a.kind == Kind::kUint) return cmp(a.u, b.u);
    if (std::isnan(a.d) || std::isnan(b.d)) return 2;
    return cmp(a.d, b.d);
  }
  if (a.kind == Kind::kInt && b.kind == Kind::kUint) {
    if (a.i < 0) return -1;
    return cmp(static_cast<uint64_t>(a.i), b.u);
  }
  if (a.kind == Kind::kUint && b.kind == Kind::kInt) return -CompareNumbers(b, a);
  // One side is a double.
  const Value& dv = a.kind == Kind::kDouble ? a : b;
  const Value& other = a.kind == Kind::kDouble ? b : a;
  int sign = a.kind == Kind::kDouble ? 1 : -1;
  double d = dv.d;
  if (std::isnan(d)) return 2;
  int r;
  if (other.kind == Kind::kInt) {
    // Doubles beyond the int range order trivially; inside it compare exactly.
    if (d < -9223372036854775808.0) {
      r = -1;
    } else if (d >= 9223372036854775808.0) {
      r = 1;
    } else {
      double t = std::trunc(d);
      auto ti = static_cast<int64_t>(t);
      if (ti != other.i) {
        r = ti < other.i ? -1 : 1;
      } else {
        r = d > t ? 1 : (d < t ? -1 : 0);
      }
    }
  } else {
    if (d < 0) {
      r = -1;
    } else if (d >= 18446744073709551616.0) {
      r = 1;
    } else {
      double t = std::trunc(d);
      auto tu = static_cast<uint64_t>(t);
      if (tu != other.u) {
        r = tu < other.u ? -1 : 1;
      } else {
        r = d > t ? 1 : (d < t ? -1 : 0);
      }
    }
  }
  return sign * r;
}

bool IsMapper(const Value& v) { return v.kind == Kind::kMap || v.kind == Kind::kObject; }

// Finds a key in a map with heterogeneous numeric key equality.
const Value* FindKey(const MapData& m, const Value& key) {
  if (key.kind == Kind::kString) return m.FindString(key.str());
  for (const auto& [k, v] : m.entries) {
    Value eq = Equal(k, key);
    if (eq.IsTrue()) return &v;
  }
  return nullptr;
}

}  // namespace

Value Equal(const Value& a, const Value& b) {
  if (a.IsError()) return a;
  if (b.IsError()) return b;
  if (IsNumber(a) && IsNumber(b)) return Value::Bool(CompareNumbers(a, b) == 0);
  if (IsMapper(a) && IsMapper(b)) {
    const auto& ma = *a.map;
    const auto& mb = *b.map;
    if (ma.entries.size() != mb.entries.size()) return Value::Bool(false);
    for (const auto& [k, v] : ma.entries) {
      const Value* other = FindKey(mb, k);
      if (other == nullptr) return Value::Bool(false);
      Value eq = Equal(v, *other);
      if (!eq.IsTrue()) return eq.IsError() ? eq : Value::Bool(false);
    }
    return Value::Bool(true);
  }
  if (a.kind != b.kind) return Value::Bool(false);
  switch (a.kind) {
    case Kind::kNull:
      return Value::Bool(true);
    case Kind::kBool:
      return Value::Bool(a.b == b.b);
    case Kind::kString:
    case Kind::kBytes:
    case Kind::kType:
    case Kind::kUrl:
    case Kind::kIP:
    case Kind::kCIDR:
      return Value::Bool(a.str() == b.str());
    case Kind::kDuration:
      return Value::Bool(a.i == b.i);
    case Kind::kTimestamp:
      return Value::Bool(a.i == b.i && a.nanos == b.nanos);
    case Kind::kQuantity:
      return Value::Bool(a.q == b.q);
    case Kind::kOptional: {
      if (a.items().empty() || b.items().empty()) {
        return Value::Bool(a.items().empty() && b.items().empty());
      }
      return Equal(a.items()[0], b.items()[0]);
    }
    case Kind::kList: {
      const auto& la = a.items();
      const auto& lb = b.items();
      if (la.size() != lb.size()) return Value::Bool(false);
      bool unordered = a.list->list_type != ListType::kAtomic;
      if (!unordered) {
        for (size_t i = 0; i < la.size(); ++i) {
          Value eq = Equal(la[i], lb[i]);
          if (!eq.IsTrue()) return eq.IsError() ? eq : Value::Bool(false);
        }
        return Value::Bool(true);
      }
      // Sets and map lists: every element has an equal one on the other side.
      for (const auto& x : la) {
        bool found = false;
        for (const auto& y : lb) {
          if (Equal(x, y).IsTrue()) {
            found = true;
            break;
          }
        }
        if (!found) return Value::Bool(false);
      }
      return Value::Bool(true);
    }
    default:
      return Value::Bool(false);
  }
}

int Compare(const Value& a, const Value& b) {
  if (IsNumber(a) && IsNumber(b)) return CompareNumbers(a, b);
  if (a.kind != b.kind) return 2;
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  switch (a.kind) {
    case Kind::kBool:
      return cmp(a.b, b.b);
    case Kind::kString:
    case Kind::kBytes: {
      int c = a.str().compare(b.str());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case Kind::kDuration:
      return cmp(a.i, b.i);
    case Kind::kTimestamp:
      return a.i != b.i ? cmp(a.i, b.i) : cmp(a.nanos, b.nanos);
    case Kind::kQuantity:
      return cmp(a.q, b.q);
    default:
      return 2;
  }
}

std::string FormatDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  if (d == 0) return std::signbit(d) ? "-0" : "0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  // sci: [-]D[.DDD]e(+|-)XX
  bool neg = sci[0] == '-';
  if (neg) sci.erase(0, 1);
  size_t e = sci.find('e');
  std::string mant = sci.substr(0, e);
  int exp = std::atoi(sci.c_str() + e + 1);
  std::string digits;
  for (char c : mant) {
    if (c != '.') digits.push_back(c);
  }
  std::string out = neg ? "-" : "";
  if (exp < -4 || exp >= 6) {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += "e";
    out += exp < 0 ? "-" : "+";
    int ax = std::abs(exp);
    if (ax < 10) out += "0";
    out += std::to_string(ax);
    return out;
  }
  if (exp < 0) {
    out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    return out;
  }
  auto int_len = static_cast<size_t>(exp + 1);
  if (digits.size() <= int_len) {
    out += digits + std::string(int_len - digits.size(), '0');
  } else {
    out += digits.substr(0, int_len) + "." + digits.substr(int_len);
  }
  return out;
}

namespace {
// Elements of lists and maps: strings quoted.
std::string Nested(const Value& v) {
  if (v.kind == Kind::kString) return "'" + v.str() + "'";
  return DebugString(v);
}
}  // namespace

std::string DebugString(const Value& v) {
  switch (v.kind) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return v.b ? "true" : "false";
    case Kind::kInt:
      return std::to_string(v.i);
    case Kind::kUint:
      return std::to_string(v.u);
    case Kind::kDouble:
      return FormatDouble(v.d);
    case Kind::kString:
    case Kind::kBytes:
    case Kind::kType:
    case Kind::kError:
    case Kind::kQuantity:
    case Kind::kUrl:
    case Kind::kIP:
    case Kind::kCIDR:
      return v.str();
    case Kind::kDuration: {
      return std::to_string(v.i / 1000000000) + "s";
    }
    case Kind::kTimestamp:
      return std::to_string(v.i);
    case Kind::kList: {
      std::string out = "[";
      for (size_t i = 0; i < v.items().size(); ++i) {
        if (i > 0) out += ", ";
        out += Nested(v.items()[i]);
      }
      return out + "]";
    }
    case Kind::kMap:
    case Kind::kObject: {
      std::string out = "{";
      bool first = true;
      for (const auto& [k, val] : v.map->entries) {
        if (!first) out += ", ";
        first = false;
        out += Nested(k) + ": " + Nested(val);
      }
      return out + "}";
    }
    case Kind::kOptional:
      return v.items().empty() ? "optional.none()" : "optional.of(" + Nested(v.items()[0]) + ")";
  }
  return "";
}

// ---------------------------------------------------------------------------------------------

namespace {
TypePtr Simple(TypeKind k) {
  auto t = std::make_shared<Type>();
  t->kind = k;
  return t;
}
}  // namespace

TypePtr DynType() {
  static const TypePtr t = Simple(TypeKind::kDyn);
  return t;
}
TypePtr NullType() {
  static const TypePtr t = Simple(TypeKind::kNull);
  return t;
}
TypePtr BoolType() {
  static const TypePtr t = Simple(TypeKind::kBool);
  return t;
}
TypePtr IntType() {
  static const TypePtr t = Simple(TypeKind::kInt);
  return t;
}
TypePtr UintType() {
  static const TypePtr t = Simple(TypeKind::kUint);
  return t;
}
TypePtr DoubleType() {
  static const TypePtr t = Simple(TypeKind::kDouble);
  return t;
}
TypePtr StringType() {
  static const TypePtr t = Simple(TypeKind::kString);
  return t;
}
TypePtr BytesType() {
  static const TypePtr t = Simple(TypeKind::kBytes);
  return t;
}
TypePtr DurationType() {
  static const TypePtr t = Simple(TypeKind::kDuration);
  return t;
}
TypePtr TimestampType() {
  static const TypePtr t = Simple(TypeKind::kTimestamp);
  return t;
}
TypePtr QuantityType() {
  static const TypePtr t = Simple(TypeKind::kQuantity);
  return t;
}
TypePtr UrlType() {
  static const TypePtr t = Simple(TypeKind::kUrl);
  return t;
}
TypePtr IPType() {
  static const TypePtr t = Simple(TypeKind::kIP);
  return t;
}
TypePtr CIDRType() {
  static const TypePtr t = Simple(TypeKind::kCIDR);
  return t;
}
TypePtr ErrorType() {
  static const TypePtr t = Simple(TypeKind::kError);
  return t;
}
TypePtr ListOf(TypePtr elem) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::kList;
  t->elem = std::move(elem);
  return t;
}
TypePtr MapOf(TypePtr key, TypePtr value) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::kMap;
  t->key = std::move(key);
  t->elem = std::move(value);
  return t;
}
TypePtr OptionalOf(TypePtr elem) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::kOptional;
  t->elem = std::move(elem);
  return t;
}
TypePtr TypeOf(TypePtr elem) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::kType;
  t->elem = std::move(elem);
  return t;
}
TypePtr Param(std::string name) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::kParam;
  t->name = std::move(name);
  return t;
}

std::string FormatType(const TypePtr& t) {
  if (!t) return "dyn";
  switch (t->kind) {
    case TypeKind::kDyn:
      return "dyn";
    case TypeKind::kNull:
      return "null_type";
    case TypeKind::kBool:
      return "bool";
    case TypeKind::kInt:
      return "int";
    case TypeKind::kUint:
      return "uint";
    case TypeKind::kDouble:
      return "double";
    case TypeKind::kString:
      return "string";
    case TypeKind::kBytes:
      return "bytes";
    case TypeKind::kDuration:
      return "google.protobuf.Duration";
    case TypeKind::kTimestamp:
      return "google.protobuf.Timestamp";
    case TypeKind::kList:
      return "list(" + FormatType(t->elem) + ")";
    case TypeKind::kMap:
      return "map(" + FormatType(t->key) + ", " + FormatType(t->elem) + ")";
    case TypeKind::kObject:
      return "object";
    case TypeKind::kType:
      return t->elem ? "type(" + FormatType(t->elem) + ")" : "type";
    case TypeKind::kQuantity:
      return "kubernetes.Quantity";
    case TypeKind::kUrl:
      return "kubernetes.URL";
    case TypeKind::kIP:
      return "net.IP";
    case TypeKind::kCIDR:
      return "net.CIDR";
    case TypeKind::kOptional:
      return "optional_type(" + FormatType(t->elem) + ")";
    case TypeKind::kParam:
      return t->name;
    case TypeKind::kError:
      return "*error*";
  }
  return "dyn";
}

}  // namespace apiextensions::cel
