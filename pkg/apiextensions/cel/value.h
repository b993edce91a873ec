#pragma once
// Values and static types of the CEL subset used by x-kubernetes-validations rules.
//
// A Value is a small tagged struct: scalars inline, strings, lists and maps shared (values are
// immutable once built, so copies are cheap). Errors are values too, as in cel-go, so that the
// logical operators can absorb them; only the cost limit and internal limits unwind with C++
// exceptions.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace apiextensions::cel {

struct Type;
using TypePtr = std::shared_ptr<const Type>;

enum class Kind : uint8_t {
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kList,
  kMap,
  kObject,  // an object of the schema (properties): a map of its present fields
  kType,
  kDuration,
  kTimestamp,
  kQuantity,
  kUrl,
  kIP,    // Kubernetes' net.IP: s holds the canonical text
  kCIDR,  // Kubernetes' net.CIDR: s holds the canonical text "addr/bits"
  kOptional,
  kError,
};

// x-kubernetes-list-type of a list that came from the object: sets and map lists compare
// without regard to order and concatenate as unions, as upstream's unstructured lists do.
enum class ListType : uint8_t { kAtomic, kSet, kMap };

struct Value;

struct ListData {
  std::vector<Value> items;
  ListType list_type = ListType::kAtomic;
  std::vector<std::string> map_keys;  // x-kubernetes-list-map-keys of a kMap list
};

struct MapData {
  std::vector<std::pair<Value, Value>> entries;
  std::unordered_map<std::string, size_t> string_index;  // string keys -> entries index
  const Value* FindString(std::string_view key) const;
};

struct Value {
  Kind kind = Kind::kNull;
  bool b = false;
  int64_t i = 0;      // int; duration nanoseconds; timestamp seconds since the epoch
  uint64_t u = 0;     // uint
  double d = 0;       // double
  int32_t nanos = 0;  // timestamp nanoseconds
  long double q = 0;  // quantity amount
  std::shared_ptr<const std::string> s;  // string, bytes, type name, error, quantity, url
  std::shared_ptr<const ListData> list;  // list; optional (0 or 1 item)
  std::shared_ptr<const MapData> map;    // map, object

  static Value Null() { return Value{}; }
  static Value Bool(bool v);
  static Value Int(int64_t v);
  static Value Uint(uint64_t v);
  static Value Double(double v);
  static Value String(std::string v);
  static Value Bytes(std::string v);
  static Value TypeValue(std::string name);
  static Value Duration(int64_t nanos);
  static Value Timestamp(int64_t seconds, int32_t nanos);
  static Value Error(std::string message);
  static Value NoSuchOverload();
  static Value List(std::vector<Value> items, ListType type = ListType::kAtomic,
                    std::vector<std::string> map_keys = {});
  static Value Map(std::vector<std::pair<Value, Value>> entries, bool object = false);
  static Value Optional(const Value* v);  // none when v is null
  static Value Quantity(std::string text, long double amount);
  static Value Url(std::string text);
  static Value IP(std::string canonical);
  static Value CIDR(std::string canonical);

  bool IsError() const { return kind == Kind::kError; }
  bool IsTrue() const { return kind == Kind::kBool && b; }
  const std::string& str() const { return *s; }
  const std::vector<Value>& items() const { return list->items; }
};

// The CEL type name of a value, as type() reports it ("int", "list", "map",
// "google.protobuf.Duration", ...).
std::string TypeName(const Value& v);

// cel-go's heterogeneous equality: numbers compare across int/uint/double, values of
// different types are unequal; an error operand gives that error. Returns a bool or error.
Value Equal(const Value& a, const Value& b);
// -1, 0, 1 for ordered values (numbers across types, strings, bytes, bools, durations,
// timestamps, quantities); std::nullopt-like 2 when not comparable (NaN or other types).
int Compare(const Value& a, const Value& b);

// Debug/printing form used in messages (string(x) for scalars; lists and maps as CEL literals).
std::string DebugString(const Value& v);

// Go's %g formatting of a double (strconv.FormatFloat(f, 'g', -1, 64)) as cel-go prints doubles.
std::string FormatDouble(double d);

// ---------------------------------------------------------------------------------------------
// Static types.

enum class TypeKind : uint8_t {
  kDyn,
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kDuration,
  kTimestamp,
  kList,
  kMap,
  kObject,
  kType,
  kQuantity,
  kUrl,
  kIP,
  kCIDR,
  kOptional,
  kParam,
  kError,
};

struct FieldType {
  std::string json_name;  // the property name in the object
  TypePtr type;
};

struct Type {
  TypeKind kind = TypeKind::kDyn;
  TypePtr elem;                             // list element, map value, optional value, type(T)'s T
  TypePtr key;                              // map key
  std::string name;                         // type parameter name
  std::map<std::string, FieldType> fields;  // object: escaped CEL name -> field
  ListType list_type = ListType::kAtomic;   // list from a schema
  std::vector<std::string> map_keys;
  // Types of schema nodes (SchemaType) carry what the static cost estimator needs: the most
  // elements a value can have (characters or bytes of a string, items of a list, entries of
  // a map; 0 for other kinds) and the size of the smallest JSON encoding of a value. Types
  // that do not come from a schema leave both 0.
  int64_t max_elements = 0;
  int64_t min_serialized_size = 0;
};

TypePtr DynType();
TypePtr NullType();
TypePtr BoolType();
TypePtr IntType();
TypePtr UintType();
TypePtr DoubleType();
TypePtr StringType();
TypePtr BytesType();
TypePtr DurationType();
TypePtr TimestampType();
TypePtr QuantityType();
TypePtr UrlType();
TypePtr IPType();
TypePtr CIDRType();
TypePtr ErrorType();
TypePtr ListOf(TypePtr elem);
TypePtr MapOf(TypePtr key, TypePtr value);
TypePtr OptionalOf(TypePtr elem);
TypePtr TypeOf(TypePtr elem);
TypePtr Param(std::string name);

// cel-go's rendering of a type in checker messages: "int", "list(string)",
// "map(string, int)", "optional_type(int)", "type(int)", "object" for schema objects.
std::string FormatType(const TypePtr& t);

}  // namespace apiextensions::cel
