#include "pkg/genericserver/apimachinery/validation/names.h"

#include "pkg/util/strings.h"

namespace apimachinery::validation {

namespace {

// The regexes upstream's messages quote; the checks below implement them by hand.
constexpr std::string_view kDNS1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDNS1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDNS1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";

constexpr std::string_view kDNS1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character";
constexpr std::string_view kDNS1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kDNS1035LabelErrMsg =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) { return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z'); }

// ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$
bool MatchesDNS1123Label(std::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

// ^label(\.label)*$
bool MatchesDNS1123Subdomain(std::string_view s) {
  for (const std::string& part : util::Split(s, '.')) {
    if (!MatchesDNS1123Label(part)) return false;
  }
  return true;
}

// ^[a-z]([-a-z0-9]*[a-z0-9])?$
bool MatchesDNS1035Label(std::string_view s) {
  return MatchesDNS1123Label(s) && s.front() >= 'a' && s.front() <= 'z';
}

// ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$
bool MatchesQualifiedName(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

}  // namespace

std::string MaxLenError(size_t length) {
  return "must be no more than " + std::to_string(length) + " characters";
}

std::string RegexError(std::string_view msg, std::string_view regex,
                       const std::vector<std::string_view>& examples) {
  std::string out(msg);
  if (examples.empty()) return out + " (regex used for validation is '" + std::string(regex) + "')";
  out += " (e.g. ";
  for (size_t i = 0; i < examples.size(); ++i) {
    if (i > 0) out += " or ";
    out += "'" + std::string(examples[i]) + "', ";
  }
  out += "regex used for validation is '" + std::string(regex) + "')";
  return out;
}

std::string EmptyError() { return "must be non-empty"; }

std::vector<std::string> IsDNS1123Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDNS1123LabelMaxLength) errs.push_back(MaxLenError(kDNS1123LabelMaxLength));
  if (!MatchesDNS1123Label(value)) {
    if (MatchesDNS1123Subdomain(value)) {
      errs.push_back("must not contain dots");  // a subdomain, so only the dots are wrong
    } else {
      errs.push_back(RegexError(kDNS1123LabelErrMsg, kDNS1123LabelFmt, {"my-name", "123-abc"}));
    }
  }
  return errs;
}

std::vector<std::string> IsDNS1123Subdomain(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDNS1123SubdomainMaxLength) {
    errs.push_back(MaxLenError(kDNS1123SubdomainMaxLength));
  }
  if (!MatchesDNS1123Subdomain(value)) {
    errs.push_back(RegexError(kDNS1123SubdomainErrMsg, kDNS1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

std::vector<std::string> IsDNS1035Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDNS1035LabelMaxLength) errs.push_back(MaxLenError(kDNS1035LabelMaxLength));
  if (!MatchesDNS1035Label(value)) {
    errs.push_back(RegexError(kDNS1035LabelErrMsg, kDNS1035LabelFmt, {"my-name", "abc-123"}));
  }
  return errs;
}

std::vector<std::string> IsQualifiedName(std::string_view value) {
  std::vector<std::string> errs;
  const std::vector<std::string> parts = util::Split(value, '/');
  std::string_view name;
  switch (parts.size()) {
    case 1:
      name = parts[0];
      break;
    case 2:
      name = parts[1];
      if (parts[0].empty()) {
        errs.push_back("prefix part " + EmptyError());
      } else {
        for (const std::string& msg : IsDNS1123Subdomain(parts[0])) {
          errs.push_back("prefix part " + msg);
        }
      }
      break;
    default:
      errs.push_back(
          "a qualified name " +
          RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}) +
          " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errs;
  }
  if (name.empty()) {
    errs.push_back("name part " + EmptyError());
  } else if (name.size() > kQualifiedNameMaxLength) {
    errs.push_back("name part " + MaxLenError(kQualifiedNameMaxLength));
  }
  if (!MatchesQualifiedName(name)) {
    errs.push_back("name part " + RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                                             {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> IsValidLabelValue(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kLabelValueMaxLength) errs.push_back(MaxLenError(kLabelValueMaxLength));
  if (!value.empty() && !MatchesQualifiedName(value)) {
    errs.push_back(RegexError(kLabelValueErrMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

std::vector<FieldError> ValidateLabels(const std::map<std::string, std::string>& labels,
                                       std::string_view field_path) {
  std::vector<FieldError> errs;
  const std::string path(field_path);
  for (const auto& [key, value] : labels) {
    for (std::string& msg : IsQualifiedName(key)) errs.push_back(FieldInvalid(path, key, msg));
    for (std::string& msg : IsValidLabelValue(value)) {
      errs.push_back(FieldInvalid(path, value, msg));
    }
  }
  return errs;
}

std::vector<FieldError> ValidateAnnotations(const std::map<std::string, std::string>& annotations,
                                            std::string_view field_path) {
  std::vector<FieldError> errs;
  const std::string path(field_path);
  size_t total = 0;
  for (const auto& [key, value] : annotations) {
    // Upstream: the rule is a qualified name except that case does not matter.
    for (std::string& msg : IsQualifiedName(util::ToLower(key))) {
      errs.push_back(FieldInvalid(path, key, msg));
    }
    total += key.size() + value.size();
  }
  if (total > kTotalAnnotationSizeLimitBytes) {
    errs.push_back(FieldTooLong(path, kTotalAnnotationSizeLimitBytes));
  }
  return errs;
}

}  // namespace apimachinery::validation
