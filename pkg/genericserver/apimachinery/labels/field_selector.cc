#include "pkg/genericserver/apimachinery/labels/field_selector.h"

#include <algorithm>

#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace apimachinery::fields {

namespace {

using validation::AppendRune;
using validation::DecodeRune;
using validation::GoQuote;

// The terms between unescaped commas; an escaped comma stays in its term, backslash included.
std::vector<std::string> SplitTerms(std::string_view selector) {
  std::vector<std::string> terms;
  if (selector.empty()) return terms;
  size_t start = 0;
  bool in_slash = false;
  for (size_t i = 0; i < selector.size(); ++i) {
    const char c = selector[i];
    if (in_slash) {
      in_slash = false;
    } else if (c == '\\') {
      in_slash = true;
    } else if (c == ',') {
      terms.emplace_back(selector.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.emplace_back(selector.substr(start));
  return terms;
}

struct Term {
  std::string_view lhs;
  Operator op;
  std::string_view rhs;
};

// Splits at the first operator: at each position "!=" is tried, then "==", then "=".
std::optional<Term> SplitTerm(std::string_view term) {
  for (size_t i = 0; i < term.size(); ++i) {
    const std::string_view rest = term.substr(i);
    if (rest.starts_with("!="))
      return Term{term.substr(0, i), Operator::kNotEquals, rest.substr(2)};
    if (rest.starts_with("==")) return Term{term.substr(0, i), Operator::kEquals, rest.substr(2)};
    if (rest.starts_with("=")) return Term{term.substr(0, i), Operator::kEquals, rest.substr(1)};
  }
  return std::nullopt;
}

// The kinds whose upstream field label conversion answers "field label not supported: <f>".
bool HasNotSupportedWording(const GroupResource& r) {
  if (r.group.empty()) {
    return r.resource == "pods" || r.resource == "nodes" ||
           r.resource == "replicationcontrollers" || r.resource == "events" ||
           r.resource == "namespaces" || r.resource == "secrets" || r.resource == "services";
  }
  return (r.group == "certificates.k8s.io" && r.resource == "certificatesigningrequests") ||
         (r.group == "events.k8s.io" && r.resource == "events");
}

}  // namespace

bool Selector::Matches(const FieldLookup& lookup) const {
  for (const Requirement& r : requirements_) {
    const std::string have = lookup(r.field).value_or("");
    if ((have == r.value) != (r.op == Operator::kEquals)) return false;
  }
  return true;
}

std::string Selector::String() const {
  std::string out;
  for (size_t i = 0; i < requirements_.size(); ++i) {
    const Requirement& r = requirements_[i];
    if (i > 0) out += ",";
    out += r.field;
    out += r.op == Operator::kEquals ? "=" : "!=";
    out += EscapeValue(r.value);
  }
  return out;
}

std::optional<std::string> Selector::RequiresExactMatch(std::string_view field) const {
  for (const Requirement& r : requirements_) {
    if (r.op == Operator::kEquals && r.field == field) return r.value;
  }
  return std::nullopt;
}

std::expected<Selector, std::string> Selector::Transform(const TransformFunc& fn) const {
  std::vector<Requirement> out;
  out.reserve(requirements_.size());
  for (const Requirement& r : requirements_) {
    auto mapped = fn(r.field, r.value);
    if (!mapped) return std::unexpected(std::move(mapped.error()));
    if (mapped->first.empty() && mapped->second.empty()) continue;
    out.push_back({std::move(mapped->first), r.op, std::move(mapped->second)});
  }
  return Selector(std::move(out));
}

std::string EscapeValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\' || c == ',' || c == '=') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::expected<std::string, std::string> UnescapeValue(std::string_view value) {
  if (value.find_first_of("\\,=") == std::string_view::npos) return std::string(value);
  // Rune by rune, as upstream: invalid UTF-8 bytes come out as U+FFFD.
  std::string out;
  out.reserve(value.size());
  bool in_slash = false;
  while (!value.empty()) {
    const validation::DecodedRune d = DecodeRune(value);
    value.remove_prefix(d.size);
    const char32_t c = d.rune;
    if (in_slash) {
      if (c != '\\' && c != ',' && c != '=') {
        std::string sequence = "\\";
        AppendRune(sequence, c);
        return std::unexpected("invalid field selector: invalid escape sequence: " + sequence);
      }
      out.push_back(static_cast<char>(c));
      in_slash = false;
    } else if (c == '\\') {
      in_slash = true;
    } else if (c == ',' || c == '=') {
      // Upstream prints the rune with %v: its code point in decimal.
      return std::unexpected("invalid field selector: unescaped character in value: " +
                             std::to_string(static_cast<unsigned>(c)));
    } else {
      AppendRune(out, c);
    }
  }
  if (in_slash) return std::unexpected("invalid field selector: invalid escape sequence: \\");
  return out;
}

std::expected<Selector, std::string> ParseSelector(std::string_view selector) {
  std::vector<std::string> parts = SplitTerms(selector);
  std::sort(parts.begin(), parts.end());
  std::vector<Requirement> requirements;
  for (const std::string& part : parts) {
    if (part.empty()) continue;
    const std::optional<Term> term = SplitTerm(part);
    if (!term) {
      return std::unexpected("invalid selector: '" + std::string(selector) +
                             "'; can't understand '" + part + "'");
    }
    auto value = UnescapeValue(term->rhs);
    if (!value) return std::unexpected(std::move(value.error()));
    requirements.push_back({std::string(term->lhs), term->op, std::move(*value)});
  }
  return Selector(std::move(requirements));
}

std::optional<std::string> ExactName(const Selector& selector) {
  return selector.RequiresExactMatch("metadata.name");
}

std::string UnsupportedFieldMessage(const GroupResource& resource, std::string_view field,
                                    bool is_custom_resource) {
  if (is_custom_resource || HasNotSupportedWording(resource)) {
    return "field label not supported: " + std::string(field);
  }
  if (resource.group == "batch" && resource.resource == "jobs") {
    return "field label " + GoQuote(field) + " not supported for batchv1.Job";
  }
  return GoQuote(field) + " is not a known field selector: only " + GoQuote("metadata.name") +
         ", " + GoQuote("metadata.namespace");
}

std::optional<std::string> CheckSupportedFields(const Selector& selector,
                                                const GroupResource& resource,
                                                const std::vector<std::string>& supported,
                                                bool is_custom_resource) {
  for (const Requirement& r : selector.Requirements()) {
    if (std::find(supported.begin(), supported.end(), r.field) == supported.end()) {
      return UnsupportedFieldMessage(resource, r.field, is_custom_resource);
    }
  }
  return std::nullopt;
}

}  // namespace apimachinery::fields
