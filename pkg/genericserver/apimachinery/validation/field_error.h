#pragma once
// Field-level validation errors (upstream k8s.io/apimachinery/pkg/util/validation/field) and
// the 422 Invalid Status built from them (apierrors.NewInvalid).
//
// A FieldError renders exactly as upstream's field.Error.Error():
//   metadata.name: Invalid value: "Foo": a lowercase RFC 1123 subdomain must consist of ...
//   metadata.name: Required value: name or generateName is required
//   metadata.annotations: Too long: may not be more than 262144 bytes

#include <string>
#include <string_view>
#include <vector>

#include "pkg/genericserver/apimachinery/status.h"

namespace apimachinery::validation {

// The error types, which are also the StatusCause reasons (metav1.CauseType).
inline constexpr std::string_view kFieldValueNotFound = "FieldValueNotFound";
inline constexpr std::string_view kFieldValueRequired = "FieldValueRequired";
inline constexpr std::string_view kFieldValueDuplicate = "FieldValueDuplicate";
inline constexpr std::string_view kFieldValueInvalid = "FieldValueInvalid";
inline constexpr std::string_view kFieldValueNotSupported = "FieldValueNotSupported";
inline constexpr std::string_view kFieldValueForbidden = "FieldValueForbidden";
inline constexpr std::string_view kFieldValueTooLong = "FieldValueTooLong";
inline constexpr std::string_view kFieldValueTooMany = "FieldValueTooMany";
inline constexpr std::string_view kFieldValueTypeInvalid = "FieldValueTypeInvalid";
inline constexpr std::string_view kInternalError = "InternalError";

// How bad_value is printed after "Invalid value: " and the like.
enum class ValueForm {
  kQuoted,    // a Go string: printed with %q (the default)
  kVerbatim,  // already in Go's %v form: `-1`, `true`, `null`, `[]string{"a"}`
  kOmitted,   // not printed at all
};

struct FieldError {
  std::string type;       // one of the k* constants above
  std::string field;      // the path, e.g. "metadata.labels" or "spec.containers[0].name"
  std::string bad_value;  // ignored for Required, Forbidden, TooLong and InternalError
  std::string detail;     // may be empty
  ValueForm value_form = ValueForm::kQuoted;

  bool operator==(const FieldError&) const = default;
};

// The constructors upstream's field package offers, with its details.
FieldError FieldInvalid(std::string field, std::string bad_value, std::string detail);
FieldError FieldRequired(std::string field, std::string detail);
FieldError FieldForbidden(std::string field, std::string detail);
FieldError FieldDuplicate(std::string field, std::string bad_value);
FieldError FieldNotFound(std::string field, std::string bad_value);
// Detail `supported values: "a", "b"` (empty when valid_values is).
FieldError FieldNotSupported(std::string field, std::string bad_value,
                             const std::vector<std::string>& valid_values);
// Detail "may not be more than N bytes" ("byte" for 1); "value is too long" when max_bytes < 0.
FieldError FieldTooLong(std::string field, long long max_bytes);
// "Too many: <actual>: must have at most N items"; a negative actual is left out, a negative
// max gives "has too many items".
FieldError FieldTooMany(std::string field, long long actual, long long max_items);
FieldError FieldInternalError(std::string field, std::string detail);

// The human form of a type: "Invalid value", "Required value", "Too long", ...
std::string_view TypeString(std::string_view type);

// Upstream's ErrorBody(): the message without the field, used as the StatusCause message.
std::string ErrorBody(const FieldError& error);

// Upstream's Error(): "<field>: <body>".
std::string ErrorString(const FieldError& error);

// Upstream's errs.ToAggregate().Error(): messages deduplicated in order; "" for none, the message
// alone for one, "[a, b]" for more.
std::string AggregateMessage(const std::vector<FieldError>& errors);

// apierrors.NewInvalid for an object of kind `kind` in API group `group` ("" for core): code
// 422, reason "Invalid", message `ConfigMap "x" is invalid: <aggregate>` (the kind qualified as
// "Deployment.apps" outside the core group), details {name, group, kind, causes}, one cause
// {reason: type, message: body, field} per error, duplicates kept.
Status NewInvalid(std::string_view group, std::string_view kind, std::string_view name,
                  const std::vector<FieldError>& errors);

}  // namespace apimachinery::validation
