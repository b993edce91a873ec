// Field paths into a structural schema (upstream's cel.ValidFieldPath: ".a.b", ".a['b']"),
// used by selectableFields and by x-kubernetes-validations fieldPath; and the selectable
// fields themselves (at most 8, each a string, boolean or integer field outside metadata).

#include <set>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/internal.h"

namespace apiextensions::validation::internal {

namespace v = apimachinery::validation;
using nlohmann::json;

namespace {

constexpr size_t kMaxSelectableFields = 8;

// The scanner upstream splits paths with: '.', '[' and ']' alone, a single-quoted string
// (from a leading quote to the next unescaped one), or the text up to the next delimiter.
std::vector<std::string> Tokens(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    size_t len = s.size();
    if (s[0] == '\'') {
      for (size_t i = 1; i < s.size(); ++i) {
        if (s[i] == '\'' && s[i - 1] != '\\') {
          len = i + 1;
          break;
        }
      }
    } else if (s[0] == '.' || s[0] == '[' || s[0] == ']') {
      len = 1;
    } else {
      const size_t d = s.find_first_of(".[]");
      if (d != std::string_view::npos) len = d;
    }
    out.emplace_back(s.substr(0, len));
    s.remove_prefix(len);
  }
  return out;
}

bool UnescapeSingleQuote(std::string_view s, std::string* out, std::string* err) {
  out->clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out->push_back(s[i]);
      continue;
    }
    const char d = s[++i];
    switch (d) {
      case 'a':
        out->push_back('\a');
        break;
      case 'b':
        out->push_back('\b');
        break;
      case 'f':
        out->push_back('\f');
        break;
      case 'n':
        out->push_back('\n');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'v':
        out->push_back('\v');
        break;
      case '\'':
        out->push_back('\'');
        break;
      case '\\':
        out->push_back('\\');
        break;
      default:
        *err = std::string("invalid escape char \\") + d;
        return false;
    }
  }
  return true;
}

const json* NonEmptyProperties(const json* s) {
  const json* p = Get(s, "properties");
  return p != nullptr && p->is_object() && !p->empty() ? p : nullptr;
}

}  // namespace

std::optional<FieldPath> ValidFieldPath(std::string_view json_path, const json* schema,
                                        bool allow_array_notation, std::string* error) {
  FieldPath result;
  bool first = true;
  auto append = [&](const std::string& name) -> bool {
    // Properties win over additionalProperties, as in upstream.
    if (schema == nullptr) {
      *error = "does not refer to a valid field";
      return false;
    }
    const json* props = NonEmptyProperties(schema);
    const json* ap = Get(schema, "additionalProperties");
    if (props != nullptr) {
      result.path = Child(result.path, name);
      if (first) result.root = name;
      const json* next = Get(props, name);
      if (next == nullptr || !next->is_object()) {
        *error = "does not refer to a valid field";
        return false;
      }
      schema = next;
    } else if (ap != nullptr) {
      result.path = Key(result.path, name);
      if (first) result.root = "[" + name + "]";
      schema = ap->is_object() ? ap : nullptr;
    } else {
      *error = "does not refer to a valid field";
      return false;
    }
    first = false;
    return true;
  };
  const std::vector<std::string> tokens = Tokens(json_path);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& tok = tokens[i];
    if (tok == "[") {
      if (!allow_array_notation) {
        *error = "array notation is not allowed";
        return std::nullopt;
      }
      if (++i >= tokens.size()) {
        *error = "unexpected end of JSON path";
        return std::nullopt;
      }
      const std::string& quoted = tokens[i];
      if (quoted.size() < 2 || quoted.front() != '\'' || quoted.back() != '\'') {
        *error = "expected single quoted string but got " + quoted;
        return std::nullopt;
      }
      std::string name, err;
      if (!UnescapeSingleQuote(std::string_view(quoted).substr(1, quoted.size() - 2), &name,
                               &err)) {
        *error = "invalid string literal: " + err;
        return std::nullopt;
      }
      if (!append(name)) return std::nullopt;
      if (++i >= tokens.size()) {
        *error = "unexpected end of JSON path";
        return std::nullopt;
      }
      if (tokens[i] != "]") {
        *error = "expected ] but got " + tokens[i];
        return std::nullopt;
      }
    } else if (tok == ".") {
      if (++i >= tokens.size()) {
        *error = "unexpected end of JSON path";
        return std::nullopt;
      }
      if (!append(tokens[i])) return std::nullopt;
    } else {
      *error = "expected [ or . but got: " + tok;
      return std::nullopt;
    }
  }
  result.schema = schema;
  return result;
}

void ValidateSelectableFields(const json& fields, const json* schema, const std::string& path,
                              FieldErrors& errors) {
  if (!fields.is_array()) return;
  std::set<std::string> unique;
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string field = Child(Index(path, i), "jsonPath");
    const std::string json_path = Str(&fields[i], "jsonPath");
    if (json_path.empty()) {
      errors.push_back(v::FieldRequired(field, ""));
      continue;
    }
    std::string err;
    const std::optional<FieldPath> found = ValidFieldPath(json_path, schema, false, &err);
    if (!found) {
      errors.push_back(v::FieldInvalid(field, json_path, "is an invalid path: " + err));
      continue;
    }
    if (found->root == "metadata") {
      errors.push_back(v::FieldInvalid(field, json_path, "must not point to fields in metadata"));
    }
    const std::string type = Str(found->schema, "type");
    if (type != "string" && type != "boolean" && type != "integer") {
      errors.push_back(v::FieldInvalid(field, json_path,
                                       "must point to a field of type string, boolean or "
                                       "integer. Enum string fields and strings with formats are "
                                       "allowed."));
    }
    if (!unique.insert(found->path).second) {
      errors.push_back(v::FieldDuplicate(field, json_path));
    }
  }
  if (unique.size() > kMaxSelectableFields) {
    errors.push_back(v::FieldTooMany(path, static_cast<long long>(unique.size()),
                                     static_cast<long long>(kMaxSelectableFields)));
  }
}

}  // namespace apiextensions::validation::internal
