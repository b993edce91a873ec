// The parts of x-kubernetes-validations that compiling a CRD's rules (rule_checks.cc) and
// evaluating them (rules.cc) share.

#include "pkg/apiextensions/cel/rules_internal.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/apimachinery/validation/go_format.h"

namespace apiextensions::cel::rules_internal {

using nlohmann::json;
namespace v = apimachinery::validation;

std::string StringOr(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

bool BoolOr(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

std::string TrimSpace(std::string_view s) {
  size_t b = 0, e = s.size();
  auto sp = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  while (b < e && sp(s[b])) ++b;
  while (e > b && sp(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

bool HasNewlines(std::string_view s) { return s.find_first_of("\n\r") != std::string_view::npos; }

std::string Child(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "." + name;
}
std::string Key(const std::string& path, const std::string& key) { return path + "[" + key + "]"; }
std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

RuleSpec ReadRule(const json& j) {
  RuleSpec r;
  if (!j.is_object()) return r;
  r.rule = StringOr(j, "rule");
  r.message = StringOr(j, "message");
  r.message_expression = StringOr(j, "messageExpression");
  auto reason = j.find("reason");
  if (reason != j.end() && reason->is_string()) r.reason = reason->get<std::string>();
  r.field_path = StringOr(j, "fieldPath");
  auto opt = j.find("optionalOldSelf");
  if (opt != j.end() && opt->is_boolean()) r.optional_old_self = opt->get<bool>();
  return r;
}

std::string GoRuleString(const RuleSpec& r) {
  return "apiextensions.ValidationRule{Rule:" + v::GoQuote(r.rule) +
         ", Message:" + v::GoQuote(r.message) +
         ", MessageExpression:" + v::GoQuote(r.message_expression) +
         ", Reason:(*apiextensions.FieldValueErrorReason)(" + (r.reason ? "0xc000000000" : "nil") +
         "), FieldPath:" + v::GoQuote(r.field_path) + ", OptionalOldSelf:(*bool)(" +
         (r.optional_old_self ? "0xc000000000" : "nil") + ")}";
}

std::string RuleErrorString(const RuleSpec& r) {
  if (!r.message.empty()) return TrimSpace(r.message);
  return TrimSpace(r.rule);
}

std::string RuleMessageOrDefault(const RuleSpec& r) {
  if (r.message.empty()) return "failed rule: " + RuleErrorString(r);
  return TrimSpace(r.message);
}

namespace {

bool HasProperties(const json& s) {
  auto p = s.find("properties");
  return p != s.end() && p->is_object() && !p->empty();
}

}  // namespace

const json* AdditionalSchema(const json& s) {
  auto ap = s.find("additionalProperties");
  if (ap == s.end() || !ap->is_object()) return nullptr;
  return &*ap;
}

std::optional<std::string> ValidFieldPath(std::string_view path, const json& root,
                                          std::string* err) {
  // Tokens: '.', '[', ']' alone; quoted strings; other text up to a delimiter.
  std::vector<std::string> tokens;
  for (size_t i = 0; i < path.size();) {
    if (path[i] == '\'') {
      size_t j = i + 1;
      while (j < path.size() && !(path[j] == '\'' && path[j - 1] != '\\')) ++j;
      if (j >= path.size()) {
        tokens.emplace_back(path.substr(i));
        break;
      }
      tokens.emplace_back(path.substr(i, j - i + 1));
      i = j + 1;
      continue;
    }
    if (path[i] == '.' || path[i] == '[' || path[i] == ']') {
      tokens.emplace_back(1, path[i]);
      ++i;
      continue;
    }
    size_t j = i;
    while (j < path.size() && path[j] != '.' && path[j] != '[' && path[j] != ']') ++j;
    tokens.emplace_back(path.substr(i, j - i));
    i = j;
  }
  const json* schema = &root;
  std::string out;
  auto append = [&](const std::string& name) -> bool {
    if (HasProperties(*schema)) {
      out = Child(out, name);
      const auto& props = (*schema)["properties"];
      auto it = props.find(name);
      if (it == props.end()) {
        *err = "does not refer to a valid field";
        return false;
      }
      schema = &*it;
      return true;
    }
    if (const json* ap = AdditionalSchema(*schema)) {
      out = Key(out, name);
      schema = ap;
      return true;
    }
    *err = "does not refer to a valid field";
    return false;
  };
  for (size_t k = 0; k < tokens.size(); ++k) {
    const std::string& tok = tokens[k];
    if (tok == "[") {
      if (++k >= tokens.size()) {
        *err = "unexpected end of JSON path";
        return std::nullopt;
      }
      const std::string& q = tokens[k];
      if (q.size() < 2 || q.front() != '\'' || q.back() != '\'') {
        *err = "expected single quoted string but got " + q;
        return std::nullopt;
      }
      std::string unescaped;
      for (size_t i = 1; i + 1 < q.size(); ++i) {
        if (q[i] == '\\' && i + 2 < q.size()) {
          char d = q[++i];
          switch (d) {
            case 'a':
              unescaped.push_back('\a');
              break;
            case 'b':
              unescaped.push_back('\b');
              break;
            case 'f':
              unescaped.push_back('\f');
              break;
            case 'n':
              unescaped.push_back('\n');
              break;
            case 'r':
              unescaped.push_back('\r');
              break;
            case 't':
              unescaped.push_back('\t');
              break;
            case 'v':
              unescaped.push_back('\v');
              break;
            case '\'':
              unescaped.push_back('\'');
              break;
            case '\\':
              unescaped.push_back('\\');
              break;
            default:
              *err = "invalid string literal: invalid escape char \\" + std::string(1, d);
              return std::nullopt;
          }
          continue;
        }
        unescaped.push_back(q[i]);
      }
      if (!append(unescaped)) return std::nullopt;
      if (++k >= tokens.size()) {
        *err = "unexpected end of JSON path";
        return std::nullopt;
      }
      if (tokens[k] != "]") {
        *err = "expected ] but got " + tokens[k];
        return std::nullopt;
      }
    } else if (tok == ".") {
      if (++k >= tokens.size()) {
        *err = "unexpected end of JSON path";
        return std::nullopt;
      }
      if (!append(tokens[k])) return std::nullopt;
    } else {
      *err = "expected [ or . but got: " + tok;
      return std::nullopt;
    }
  }
  return out;
}

std::vector<Declaration> RuleVars(const TypePtr& t, bool optional_old_self) {
  return {{"self", t}, {"oldSelf", optional_old_self ? OptionalOf(t) : t}};
}

bool MapIsCorrelatable(const std::string& map_type) {
  return map_type.empty() || map_type == "granular" || map_type == "atomic";
}

}  // namespace apiextensions::cel::rules_internal
