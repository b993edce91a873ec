#pragma once
// Label selectors (upstream k8s.io/apimachinery/pkg/labels): parsing the `labelSelector` query
// parameter, matching a set of labels, and the canonical string form.
//
// Grammar (upstream's):
//   <selector>    ::= <requirement> | <requirement> "," <selector>
//   <requirement> ::= [!] KEY [ ("in" | "notin") "(" VALUES ")" | ("=" | "==" | "!=" | ">" | "<")
//   VALUE ]
// A bare KEY means "exists", !KEY "does not exist". KEY is a qualified name, VALUE a label value
// (may be empty); `>` and `<` compare values as 64-bit integers. Blanks separate tokens.

#include <expected>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace apimachinery::labels {

enum class Operator {
  kIn,
  kNotIn,
  kEquals,        // =
  kDoubleEquals,  // ==
  kNotEquals,     // !=
  kGreaterThan,   // >
  kLessThan,      // <
  kExists,
  kDoesNotExist,
};

// One condition on one key. Made by Parse or NewRequirement, hence always valid.
class Requirement {
 public:
  const std::string& key() const { return key_; }
  Operator op() const { return op_; }
  // The values as given (the parser gives them sorted and unique).
  const std::vector<std::string>& values() const { return values_; }

  // Upstream's Requirement.Matches: In/=/== need the key with one of the values; NotIn/!= accept
  // a missing key; Exists/DoesNotExist test the key; >/< need the key with an integer value
  // strictly greater/less than the requirement's.
  bool Matches(const std::map<std::string, std::string>& labels) const;

  // "!k", "k", "k=v", "k==v", "k!=v", "k in (a,b)", "k notin (a,b)", "k>1", "k<1"; several
  // values are printed sorted.
  std::string String() const;

  bool operator==(const Requirement&) const = default;

 private:
  friend std::expected<Requirement, std::string> NewRequirement(std::string key, Operator op,
                                                                std::vector<std::string> values);
  std::string key_;
  Operator op_ = Operator::kExists;
  std::vector<std::string> values_;
};

// Upstream's NewRequirement: checks the key, the number of values for the operator, integer
// values for >/<, and every value; on failure the error is upstream's aggregated field errors,
// e.g. `key: Invalid value: "a/b/c": a qualified name must consist of ...` or
// `values[0][k]: Invalid value: "-x": a valid label must be ...` ("[a, b]" for several).
std::expected<Requirement, std::string> NewRequirement(std::string key, Operator op,
                                                       std::vector<std::string> values);

// A conjunction of requirements, kept sorted by key (stable for equal keys), as upstream's
// parser leaves them. The default selector is empty and matches everything.
class Selector {
 public:
  Selector() = default;
  explicit Selector(std::vector<Requirement> requirements);

  // True when nothing is required: matches every set of labels.
  bool Empty() const { return requirements_.empty(); }
  bool Matches(const std::map<std::string, std::string>& labels) const;
  // The requirements' String() joined by ","; "" for the empty selector.
  std::string String() const;
  const std::vector<Requirement>& Requirements() const { return requirements_; }

  // Upstream's RequiresExactMatch: the value the first requirement on `key` pins with
  // =, == or a one-value `in`; nullopt otherwise.
  std::optional<std::string> RequiresExactMatch(std::string_view key) const;

  bool operator==(const Selector&) const = default;

 private:
  std::vector<Requirement> requirements_;
};

// Parses a selector with upstream's lexer and parser. Errors carry upstream's text, e.g.
//   unable to parse requirement: found '' expected: '('
//   unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name must ...
//   found 'b', expected: ',' or 'end of string'
// which the API answers as 400 BadRequest. "" parses to the empty selector.
std::expected<Selector, std::string> Parse(std::string_view selector);

}  // namespace apimachinery::labels
