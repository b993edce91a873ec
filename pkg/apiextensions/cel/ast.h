#pragma once
// The parsed form of a CEL expression and the parser (cel-spec's grammar: literals, operators
// with their precedence, member selection and calls, indexing, list and map literals, the
// optional syntax `a.?b` / `a[?b]`, and the standard macros expanded into comprehension nodes).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/apiextensions/cel/value.h"

namespace apiextensions::cel {

struct Overload;

enum class ExprKind : uint8_t {
  kConst,
  kIdent,
  kSelect,  // target.name; test_only for has(); optional for target.?name
  kCall,    // function(args) or target.function(args)
  kList,
  kMap,  // args are key, value, key, value, ...
  kComprehension,
};

enum class Macro : uint8_t {
  kNone,
  kAll,
  kExists,
  kExistsOne,
  kMap,        // args: transform
  kMapFilter,  // args: filter, transform
  kFilter,
  // Two-variable comprehensions (cel-go ext.TwoVarComprehensions, Kubernetes 1.32).
  kAll2,
  kExists2,
  kExistsOne2,
  kTransformList,        // args: transform
  kTransformListFilter,  // args: filter, transform
  kTransformMap,
  kTransformMapFilter,
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  ExprKind kind = ExprKind::kConst;
  int pos = 0;  // byte offset of the token that locates the node (cel-go's choice)
  Value constant;
  std::string name;  // identifier, field, function
  bool test_only = false;
  bool optional = false;  // `.?` select, `[?` index
  ExprPtr target;         // select operand, member call receiver, comprehension range
  std::vector<ExprPtr> args;
  // List elements / map entries written `?x` / `?k: v` (optional values, included when set).
  std::vector<bool> optional_entries;
  // Comprehensions.
  Macro macro = Macro::kNone;
  std::string iter_var;
  std::string iter_var2;
  // Filled by the checker.
  TypePtr type;
  std::vector<const Overload*> overloads;  // candidate overloads of a call
  bool resolved_function = false;  // call to a qualified function (optional.of, sets.contains)
};

struct ParseError {
  int pos;
  std::string message;
};

// Parses source; on failure returns the errors (at least one).
ExprPtr Parse(std::string_view source, std::vector<ParseError>& errors);

// cel-go's display of errors: "ERROR: <input>:L:C: message\n | source line\n | ....^", one per
// error, sorted by location and joined with newlines.
std::string FormatErrors(std::string_view source, std::vector<ParseError> errors);

}  // namespace apiextensions::cel
