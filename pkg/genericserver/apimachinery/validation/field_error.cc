#include "pkg/genericserver/apimachinery/validation/field_error.h"

#include <set>
#include <utility>

#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace apimachinery::validation {

namespace {

FieldError Make(std::string_view type, std::string field, std::string bad_value, std::string detail,
                ValueForm form = ValueForm::kQuoted) {
  FieldError e;
  e.type = std::string(type);
  e.field = std::move(field);
  e.bad_value = std::move(bad_value);
  e.detail = std::move(detail);
  e.value_form = form;
  return e;
}

}  // namespace

FieldError FieldInvalid(std::string field, std::string bad_value, std::string detail) {
  return Make(kFieldValueInvalid, std::move(field), std::move(bad_value), std::move(detail));
}

FieldError FieldRequired(std::string field, std::string detail) {
  return Make(kFieldValueRequired, std::move(field), "", std::move(detail));
}

FieldError FieldForbidden(std::string field, std::string detail) {
  return Make(kFieldValueForbidden, std::move(field), "", std::move(detail));
}

FieldError FieldDuplicate(std::string field, std::string bad_value) {
  return Make(kFieldValueDuplicate, std::move(field), std::move(bad_value), "");
}

FieldError FieldNotFound(std::string field, std::string bad_value) {
  return Make(kFieldValueNotFound, std::move(field), std::move(bad_value), "");
}

FieldError FieldNotSupported(std::string field, std::string bad_value,
                             const std::vector<std::string>& valid_values) {
  std::string detail;
  if (!valid_values.empty()) {
    detail = "supported values: ";
    for (size_t i = 0; i < valid_values.size(); ++i) {
      if (i > 0) detail += ", ";
      detail += GoQuote(valid_values[i]);
    }
  }
  return Make(kFieldValueNotSupported, std::move(field), std::move(bad_value), std::move(detail));
}

FieldError FieldTooLong(std::string field, long long max_bytes) {
  std::string detail = "value is too long";
  if (max_bytes >= 0) {
    detail =
        "may not be more than " + std::to_string(max_bytes) + (max_bytes == 1 ? " byte" : " bytes");
  }
  return Make(kFieldValueTooLong, std::move(field), "", std::move(detail), ValueForm::kOmitted);
}

FieldError FieldTooMany(std::string field, long long actual, long long max_items) {
  std::string detail = "has too many items";
  if (max_items >= 0) detail = "must have at most " + std::to_string(max_items) + " items";
  if (actual < 0) {
    return Make(kFieldValueTooMany, std::move(field), "", std::move(detail), ValueForm::kOmitted);
  }
  return Make(kFieldValueTooMany, std::move(field), std::to_string(actual), std::move(detail),
              ValueForm::kVerbatim);
}

FieldError FieldInternalError(std::string field, std::string detail) {
  return Make(kInternalError, std::move(field), "", std::move(detail), ValueForm::kOmitted);
}

std::string_view TypeString(std::string_view type) {
  if (type == kFieldValueNotFound) return "Not found";
  if (type == kFieldValueRequired) return "Required value";
  if (type == kFieldValueDuplicate) return "Duplicate value";
  if (type == kFieldValueInvalid) return "Invalid value";
  if (type == kFieldValueNotSupported) return "Unsupported value";
  if (type == kFieldValueForbidden) return "Forbidden";
  if (type == kFieldValueTooLong) return "Too long";
  if (type == kFieldValueTooMany) return "Too many";
  if (type == kInternalError) return "Internal error";
  if (type == kFieldValueTypeInvalid) return "Invalid value";
  return type;  // upstream panics on an unknown type; the raw type is the kindest answer here
}

std::string ErrorBody(const FieldError& e) {
  std::string body(TypeString(e.type));
  const bool value_never_shown = e.type == kFieldValueRequired || e.type == kFieldValueForbidden ||
                                 e.type == kFieldValueTooLong || e.type == kInternalError;
  if (!value_never_shown && e.value_form != ValueForm::kOmitted) {
    body += ": ";
    body += e.value_form == ValueForm::kQuoted ? GoQuote(e.bad_value) : e.bad_value;
  }
  if (!e.detail.empty()) {
    body += ": ";
    body += e.detail;
  }
  return body;
}

std::string ErrorString(const FieldError& e) { return e.field + ": " + ErrorBody(e); }

std::string AggregateMessage(const std::vector<FieldError>& errors) {
  std::set<std::string> seen;
  std::vector<std::string> messages;
  for (const FieldError& e : errors) {
    std::string m = ErrorString(e);
    if (seen.insert(m).second) messages.push_back(std::move(m));
  }
  if (messages.empty()) return "";
  if (messages.size() == 1) return messages[0];
  std::string out = "[";
  for (size_t i = 0; i < messages.size(); ++i) {
    if (i > 0) out += ", ";
    out += messages[i];
  }
  out += "]";
  return out;
}

Status NewInvalid(std::string_view group, std::string_view kind, std::string_view name,
                  const std::vector<FieldError>& errors) {
  std::string qualified_kind(kind);
  if (!group.empty()) qualified_kind += "." + std::string(group);

  Status s;
  s.code = 422;
  s.reason = "Invalid";
  s.message = qualified_kind + " " + GoQuote(name) + " is invalid";
  if (!errors.empty()) s.message += ": " + AggregateMessage(errors);

  StatusDetails d;
  d.name = std::string(name);
  d.group = std::string(group);
  d.kind = std::string(kind);
  for (const FieldError& e : errors) d.causes.push_back({e.type, ErrorBody(e), e.field});
  s.details = std::move(d);
  return s;
}

}  // namespace apimachinery::validation
