#pragma once
// Field selectors (upstream k8s.io/apimachinery/pkg/fields): parsing the `fieldSelector` query
// parameter (`a=b,c!=d`, `==` as `=`, values escaped with a backslash: `\,` `\=` `\\`), matching
// objects through a field lookup, and the 400 messages upstream answers for fields a resource
// does not support.

#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/genericserver/apimachinery/status.h"

namespace apimachinery::fields {

enum class Operator {
  kEquals,     // "=" or "=="
  kNotEquals,  // "!="
};

struct Requirement {
  std::string field;  // e.g. "metadata.name"; never escaped
  Operator op = Operator::kEquals;
  std::string value;  // unescaped
  bool operator==(const Requirement&) const = default;
};

// The value of `field` on the object being matched, or nullopt when the resource does not
// support that field.
using FieldLookup = std::function<std::optional<std::string>(std::string_view field)>;

// Maps one term's field and value to new ones (e.g. "spec.host" to "spec.nodeName"), or fails
// with the message the API answers (see UnsupportedFieldMessage).
using TransformFunc = std::function<std::expected<std::pair<std::string, std::string>, std::string>(
    std::string_view field, std::string_view value)>;

// A conjunction of field requirements. The default selector is empty and matches everything.
class Selector {
 public:
  Selector() = default;
  // Keeps the given order; ParseSelector gives upstream's (terms sorted as written).
  explicit Selector(std::vector<Requirement> requirements)
      : requirements_(std::move(requirements)) {}

  bool Empty() const { return requirements_.empty(); }
  // The requirements in upstream's order: the REST layer checks their fields in this order, so
  // the first unsupported one is the one upstream names.
  const std::vector<Requirement>& Requirements() const { return requirements_; }

  // True when every requirement holds. A field the lookup does not know reads as "", as
  // upstream's fields.Set.Get; reject unsupported fields before matching.
  bool Matches(const FieldLookup& lookup) const;

  // "f=v" / "f!=v" with the value escaped, joined by ","; "" for the empty selector.
  std::string String() const;

  // The value the first `field=value` (or `==`) term pins; `!=` never pins.
  std::optional<std::string> RequiresExactMatch(std::string_view field) const;

  // Upstream's Transform: applies `fn` to every term in order and stops at the first error.
  // A term mapped to an empty field and an empty value is dropped.
  std::expected<Selector, std::string> Transform(const TransformFunc& fn) const;

  bool operator==(const Selector&) const = default;

 private:
  std::vector<Requirement> requirements_;
};

// Parses like upstream's fields.ParseSelector: terms split on unescaped commas and sorted as
// written, empty terms skipped, each split at its first "!=", "==" or "=". Errors:
//   invalid selector: 'a'; can't understand 'a'
//   invalid field selector: invalid escape sequence: \x
//   invalid field selector: unescaped character in value: 61      (a '=' in a value)
std::expected<Selector, std::string> ParseSelector(std::string_view selector);

// `\` `,` `=` prefixed with a backslash.
std::string EscapeValue(std::string_view value);
// The inverse of EscapeValue, with ParseSelector's errors.
std::expected<std::string, std::string> UnescapeValue(std::string_view value);

// The object name a selector pins with `metadata.name=X` (or `==`), for the REST layer's
// single-object fast path.
std::optional<std::string> ExactName(const Selector& selector);

// The 400 BadRequest message upstream answers for a field selector on `field`, which `resource`
// does not support. Upstream's wording depends on the kind's field label conversion:
//   kinds with their own (core pods, nodes, replicationcontrollers, events, namespaces, secrets,
//   services; certificates.k8s.io certificatesigningrequests; events.k8s.io events; every custom
//   resource):                        field label not supported: spec.foo
//   batch jobs:                       field label "spec.foo" not supported for batchv1.Job
//   every other resource:             "spec.foo" is not a known field selector: only
//                                     "metadata.name", "metadata.namespace"
// (upstream lists those two fields even for cluster-scoped resources). Pass is_custom_resource for
// resources served from CustomResourceDefinitions.
std::string UnsupportedFieldMessage(const GroupResource& resource, std::string_view field,
                                    bool is_custom_resource = false);

// The message above for the first requirement, in selector order, whose field is not in
// `supported`; nullopt when all are supported.
std::optional<std::string> CheckSupportedFields(const Selector& selector,
                                                const GroupResource& resource,
                                                const std::vector<std::string>& supported,
                                                bool is_custom_resource = false);

}  // namespace apimachinery::fields
