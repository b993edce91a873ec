// spec.versions: names, deprecation warnings, uniqueness, the one storage version; and
// status.storedVersions, which must stay served from spec.versions.

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/validation/internal.h"
#include "pkg/genericserver/apimachinery/validation/go_format.h"
#include "pkg/genericserver/apimachinery/validation/names.h"

namespace apiextensions::validation::internal {

namespace v = apimachinery::validation;
using nlohmann::json;

namespace {

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += ",";
    out += parts[i];
  }
  return out;
}

bool InRange(char32_t r, char32_t lo, char32_t hi) { return r >= lo && r <= hi; }

// unicode.IsPrint, approximated: letters, marks, numbers, punctuation, symbols and the ASCII
// space are printable; controls, other spaces, format and private-use characters are not.
bool IsPrint(char32_t r) {
  if (r < 0x20 || InRange(r, 0x7f, 0x9f)) return false;
  if (r == 0xa0 || r == 0x1680 || InRange(r, 0x2000, 0x200f) || InRange(r, 0x2028, 0x202f) ||
      InRange(r, 0x205f, 0x206f) || r == 0x3000) {
    return false;
  }
  if (r == 0xad || InRange(r, 0x600, 0x605) || r == 0x61c || r == 0x6dd || r == 0x70f ||
      r == 0x8e2 || r == 0x180e || r == 0xfeff || InRange(r, 0xfff9, 0xfffb) || r == 0x110bd ||
      InRange(r, 0x1bca0, 0x1bca3) || InRange(r, 0x1d173, 0x1d17a) ||
      InRange(r, 0xe0000, 0xe007f)) {
    return false;
  }
  if (InRange(r, 0xe000, 0xf8ff) || r >= 0xf0000 || r == 0xfffe || r == 0xffff) return false;
  return true;
}

bool ValidUTF8(std::string_view s) {
  while (!s.empty()) {
    const v::DecodedRune d = v::DecodeRune(s);
    if (d.rune == 0xfffd && d.size == 1) return false;
    s.remove_prefix(d.size);
  }
  return true;
}

std::string GoStoredVersions(const json* stored) {
  if (stored == nullptr || !stored->is_array()) return "[]string(nil)";
  std::vector<std::string> values;
  for (const json& e : *stored) values.push_back(e.is_string() ? e.get<std::string>() : "");
  return v::GoStringSlice(values);
}

}  // namespace

void ValidateVersionName(const Version& version, FieldErrors& errors) {
  if (auto errs = v::IsDNS1035Label(version.name); !errs.empty()) {
    errors.push_back(v::FieldInvalid(Child(Index("spec.versions", version.index), "name"),
                                     version.name, Join(errs)));
  }
}

void ValidateDeprecationWarning(const Version& version, FieldErrors& errors) {
  const std::string path = Child(Index("spec.versions", version.index), "deprecationWarning");
  if (version.deprecation_warning == nullptr) return;
  const std::string warning = version.deprecation_warning->get<std::string>();
  std::vector<std::string> problems;
  if (!version.deprecated) {
    problems.push_back("can only be set for deprecated versions");
  } else {
    if (warning.size() > 256) problems.push_back("must be <= 256 characters long");
    if (warning.empty()) problems.push_back("must not be an empty string");
    std::string_view rest = warning;
    size_t at = 0;
    while (!rest.empty()) {
      const v::DecodedRune d = v::DecodeRune(rest);
      if (!IsPrint(d.rune)) {
        problems.push_back(
            "must only contain printable UTF-8 characters; non-printable character found at "
            "index " +
            std::to_string(at));
        break;
      }
      rest.remove_prefix(d.size);
      at += d.size;
    }
    if (!ValidUTF8(warning)) problems.push_back("must only contain printable UTF-8 characters");
  }
  for (std::string& p : problems) errors.push_back(v::FieldInvalid(path, warning, std::move(p)));
}

void ValidateVersionSet(const Crd& crd, FieldErrors& errors) {
  std::set<std::string> seen;
  bool unique = true;
  int storage = 0;
  for (const Version& ver : crd.versions) {
    if (ver.storage) ++storage;
    if (!seen.insert(ver.name).second) unique = false;
  }
  if (!unique) {
    errors.push_back(
        InvalidVerbatim("spec.versions", GoVersions(crd), "must contain unique version names"));
  }
  if (storage != 1) {
    errors.push_back(InvalidVerbatim("spec.versions", GoVersions(crd),
                                     "must have exactly one version marked as storage version"));
  }
  if (!crd.version.empty()) {
    if (auto errs = v::IsDNS1035Label(crd.version); !errs.empty()) {
      errors.push_back(v::FieldInvalid("spec.version", crd.version, Join(errs)));
    }
  }
}

void ValidateStoredVersions(const json& crd, const Crd& view, FieldErrors& errors) {
  static const std::string kPath = "status.storedVersions";
  const json* stored = Get(Get(crd, "status"), "storedVersions");
  const std::vector<std::string> names = Strings(Get(crd, "status"), "storedVersions");
  if (names.empty()) {
    errors.push_back(
        InvalidVerbatim(kPath, GoStoredVersions(stored), "must have at least one stored version"));
    return;
  }
  std::map<std::string, size_t> remaining;  // a name's last index, as upstream's map keeps it
  for (size_t i = 0; i < names.size(); ++i) remaining[names[i]] = i;
  for (const Version& ver : view.versions) {
    const bool found = remaining.contains(ver.name);
    if (ver.storage && !found) {
      errors.push_back(InvalidVerbatim(kPath, GoStoredVersions(stored),
                                       "must have the storage version " + ver.name));
    }
    if (found) remaining.erase(ver.name);
  }
  // Upstream ranges over a map here; index order is the deterministic choice.
  std::map<size_t, std::string> missing;
  for (const auto& [name, i] : remaining) missing[i] = name;
  for (const auto& [i, name] : missing) {
    errors.push_back(v::FieldInvalid(
        Index(kPath, i), name,
        "missing from spec.versions; " + name +
            " was previously a storage version, and must remain in spec.versions until a storage "
            "migration ensures no data remains persisted in " +
            name + " and removes " + name + " from status.storedVersions"));
  }
}

}  // namespace apiextensions::validation::internal
