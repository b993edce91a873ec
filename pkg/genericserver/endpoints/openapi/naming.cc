#include "pkg/genericserver/endpoints/openapi/naming.h"

#include <array>
#include <cctype>
#include <vector>

#include "pkg/util/strings.h"

namespace endpoints::openapi {
namespace {

bool IsLetter(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
char Upper(char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }

// The verbs an operation name starts with; the shortest one that matches wins
// ("deletecollectionX" is "delete" + "collectionX").
constexpr std::array<std::string_view, 12> kVerbs = {
    "get",   "log",  "read",    "replace", "patch",  "delete",
    "watch", "list", "connect", "proxy",   "create", "deletecollection"};

std::string_view VerbOf(std::string_view operation) {
  std::string_view best;
  for (std::string_view verb : kVerbs) {
    if (operation.starts_with(verb) && (best.empty() || verb.size() < best.size())) best = verb;
  }
  return best;
}

std::vector<std::string_view> PathParts(std::string_view path) {
  while (path.starts_with('/')) path.remove_prefix(1);
  while (path.ends_with('/')) path.remove_suffix(1);
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    size_t slash = path.find('/');
    parts.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

}  // namespace

std::string ToValidOperationID(std::string_view s, bool capitalize_first) {
  std::string out;
  out.reserve(s.size());
  bool capitalize = capitalize_first;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (IsLetter(c) || c == '_' || (i != 0 && IsDigit(c))) {
      out.push_back(capitalize ? Upper(c) : c);
      capitalize = false;
    } else {
      capitalize = true;
    }
  }
  return out;
}

OperationName NameOperation(std::string_view operation, std::string_view path) {
  std::string prefix(VerbOf(operation));
  std::string_view rest = operation.substr(prefix.size());
  std::vector<std::string_view> parts = PathParts(path);
  if (!parts.empty() && parts[0] == "api") {  // "/api/v1" is the group "core"
    parts[0] = "apis";
    parts.insert(parts.begin() + 1, "core");
  }
  OperationName name;
  if (parts.size() >= 2 && parts[0] == "apis") {
    std::string_view group = parts[1];
    if (group.ends_with(".k8s.io")) group.remove_suffix(std::string_view(".k8s.io").size());
    prefix += ToValidOperationID(group, !prefix.empty());
    name.tag = ToValidOperationID(group, false);
    if (parts.size() > 2) {
      prefix += ToValidOperationID(parts[2], !prefix.empty());
      name.tag += "_" + ToValidOperationID(parts[2], false);
    }
  } else if (!parts.empty()) {
    name.tag = ToValidOperationID(parts[0], false);
  }
  name.id = prefix + ToValidOperationID(rest, !prefix.empty());
  return name;
}

std::string Title(std::string_view s) {
  std::string out(s);
  bool start = true;
  for (char& c : out) {
    if (start && IsLetter(c)) c = Upper(c);
    start = !(IsLetter(c) || IsDigit(c) || c == '_' || c == '\'');
  }
  return out;
}

std::string DefinitionName(std::string_view group, std::string_view version,
                           std::string_view kind) {
  std::string reversed;
  if (group.find('.') != std::string_view::npos) {
    std::vector<std::string> labels = util::Split(group, '.');
    for (auto it = labels.rbegin(); it != labels.rend(); ++it) {
      if (!reversed.empty()) reversed += '.';
      reversed += *it;
    }
  } else {
    reversed = std::string(group);
  }
  std::string name = reversed.empty() ? std::string() : reversed + ".";
  return name + std::string(version) + "." + std::string(kind);
}

std::string EscapeJsonPointer(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace endpoints::openapi
