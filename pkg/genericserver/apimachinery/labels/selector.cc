#include "pkg/genericserver/apimachinery/labels/selector.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "pkg/genericserver/apimachinery/validation/field_error.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/apimachinery/validation/names.h"
#include "pkg/util/strings.h"

namespace apimachinery::labels {

namespace {

using validation::FieldError;

// Go's strconv.ParseInt(s, 10, 64): optional sign, decimal digits only, no overflow.
std::optional<int64_t> ParseInt64(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  uint64_t magnitude = 0;
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (magnitude > (limit - digit) / 10) return std::nullopt;
    magnitude = magnitude * 10 + digit;
  }
  if (negative)
    return magnitude == (uint64_t{1} << 63) ? INT64_MIN : -static_cast<int64_t>(magnitude);
  return static_cast<int64_t>(magnitude);
}

bool HasValue(const std::vector<std::string>& values, std::string_view v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

}  // namespace

std::expected<Requirement, std::string> NewRequirement(std::string key, Operator op,
                                                       std::vector<std::string> values) {
  std::vector<FieldError> errs;
  if (auto msgs = validation::IsQualifiedName(key); !msgs.empty()) {
    errs.push_back(validation::FieldInvalid("key", key, util::Join(msgs, "; ")));
  }
  auto invalid_values = [&](std::string detail) {
    FieldError e =
        validation::FieldInvalid("values", validation::GoStringSlice(values), std::move(detail));
    e.value_form = validation::ValueForm::kVerbatim;
    errs.push_back(std::move(e));
  };
  switch (op) {
    case Operator::kIn:
    case Operator::kNotIn:
      if (values.empty()) invalid_values("for 'in', 'notin' operators, values set can't be empty");
      break;
    case Operator::kEquals:
    case Operator::kDoubleEquals:
    case Operator::kNotEquals:
      if (values.size() != 1) invalid_values("exact-match compatibility requires one single value");
      break;
    case Operator::kExists:
    case Operator::kDoesNotExist:
      if (!values.empty()) {
        invalid_values("values set must be empty for exists and does not exist");
      }
      break;
    case Operator::kGreaterThan:
    case Operator::kLessThan:
      if (values.size() != 1) {
        invalid_values("for 'Gt', 'Lt' operators, exactly one value is required");
      }
      for (size_t i = 0; i < values.size(); ++i) {
        if (!ParseInt64(values[i])) {
          errs.push_back(
              validation::FieldInvalid("values[" + std::to_string(i) + "]", values[i],
                                       "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      }
      break;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (auto msgs = validation::IsValidLabelValue(values[i]); !msgs.empty()) {
      errs.push_back(validation::FieldInvalid("values[" + std::to_string(i) + "][" + key + "]",
                                              values[i], util::Join(msgs, "; ")));
    }
  }
  if (!errs.empty()) return std::unexpected(validation::AggregateMessage(errs));
  Requirement r;
  r.key_ = std::move(key);
  r.op_ = op;
  r.values_ = std::move(values);
  return r;
}

bool Requirement::Matches(const std::map<std::string, std::string>& labels) const {
  const auto it = labels.find(key_);
  const bool present = it != labels.end();
  switch (op_) {
    case Operator::kIn:
    case Operator::kEquals:
    case Operator::kDoubleEquals:
      return present && HasValue(values_, it->second);
    case Operator::kNotIn:
    case Operator::kNotEquals:
      return !present || !HasValue(values_, it->second);
    case Operator::kExists:
      return present;
    case Operator::kDoesNotExist:
      return !present;
    case Operator::kGreaterThan:
    case Operator::kLessThan: {
      if (!present || values_.size() != 1) return false;
      const std::optional<int64_t> have = ParseInt64(it->second);
      const std::optional<int64_t> want = ParseInt64(values_[0]);
      if (!have || !want) return false;
      return op_ == Operator::kGreaterThan ? *have > *want : *have < *want;
    }
  }
  return false;
}

std::string Requirement::String() const {
  std::string out;
  if (op_ == Operator::kDoesNotExist) out += "!";
  out += key_;
  switch (op_) {
    case Operator::kExists:
    case Operator::kDoesNotExist:
      return out;
    case Operator::kEquals:
      out += "=";
      break;
    case Operator::kDoubleEquals:
      out += "==";
      break;
    case Operator::kNotEquals:
      out += "!=";
      break;
    case Operator::kIn:
      out += " in (";
      break;
    case Operator::kNotIn:
      out += " notin (";
      break;
    case Operator::kGreaterThan:
      out += ">";
      break;
    case Operator::kLessThan:
      out += "<";
      break;
  }
  std::vector<std::string> sorted = values_;
  std::sort(sorted.begin(), sorted.end());
  out += util::Join(sorted, ",");
  if (op_ == Operator::kIn || op_ == Operator::kNotIn) out += ")";
  return out;
}

Selector::Selector(std::vector<Requirement> requirements) : requirements_(std::move(requirements)) {
  std::stable_sort(requirements_.begin(), requirements_.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key() < b.key(); });
}

bool Selector::Matches(const std::map<std::string, std::string>& labels) const {
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const Requirement& r) { return r.Matches(labels); });
}

std::string Selector::String() const {
  std::string out;
  for (size_t i = 0; i < requirements_.size(); ++i) {
    if (i > 0) out += ",";
    out += requirements_[i].String();
  }
  return out;
}

std::optional<std::string> Selector::RequiresExactMatch(std::string_view key) const {
  for (const Requirement& r : requirements_) {
    if (r.key() != key) continue;
    const bool pins =
        r.op() == Operator::kEquals || r.op() == Operator::kDoubleEquals || r.op() == Operator::kIn;
    if (pins && r.values().size() == 1) return r.values()[0];
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace apimachinery::labels
