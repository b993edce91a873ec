#include "pkg/genericserver/endpoints/openapi/swagger_merge.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/genericserver/endpoints/openapi/naming.h"

namespace endpoints::openapi {
namespace {

using nlohmann::json;

// The two kinds of shared objects a v2 document refers to by name.
struct Section {
  std::string_view key;     // "definitions", "parameters"
  std::string_view prefix;  // "#/definitions/", "#/parameters/"
};
constexpr Section kSections[] = {{"definitions", "#/definitions/"},
                                 {"parameters", "#/parameters/"}};

std::string UnescapeJsonPointer(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '~' && i + 1 < s.size() && (s[i + 1] == '0' || s[i + 1] == '1')) {
      out.push_back(s[++i] == '0' ? '~' : '/');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

using Names = std::map<std::string_view, std::set<std::string>>;  // by section key

// The names `value` refers to, anywhere inside it, by section.
void CollectRefs(const json& value, Names& out) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (it.key() == "$ref" && it.value().is_string()) {
        const std::string& ref = it.value().get_ref<const std::string&>();
        for (const Section& section : kSections) {
          if (ref.starts_with(section.prefix)) {
            out[section.key].insert(UnescapeJsonPointer(ref.substr(section.prefix.size())));
          }
        }
      } else {
        CollectRefs(it.value(), out);
      }
    }
  } else if (value.is_array()) {
    for (const json& item : value) CollectRefs(item, out);
  }
}

using Renames = std::map<std::string_view, std::map<std::string, std::string>>;

void RewriteRefs(json& value, const Renames& renames) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (it.key() != "$ref" || !it.value().is_string()) {
        RewriteRefs(it.value(), renames);
        continue;
      }
      const std::string ref = it.value();
      for (const Section& section : kSections) {
        if (!ref.starts_with(section.prefix)) continue;
        auto by_section = renames.find(section.key);
        if (by_section == renames.end()) continue;
        auto renamed =
            by_section->second.find(UnescapeJsonPointer(ref.substr(section.prefix.size())));
        if (renamed != by_section->second.end()) {
          it.value() = std::string(section.prefix) + EscapeJsonPointer(renamed->second);
        }
      }
    }
  } else if (value.is_array()) {
    for (json& item : value) RewriteRefs(item, renames);
  }
}

const json& SectionOf(const json& doc, std::string_view key) {
  static const json kEmpty = json::object();
  auto it = doc.find(key);
  return it != doc.end() && it->is_object() ? *it : kEmpty;
}

// What `paths` use of `remote`, following references through the objects they name.
Names UsedBy(const json& paths, const json& remote) {
  Names used;
  CollectRefs(paths, used);
  std::vector<std::pair<std::string_view, std::string>> pending;
  for (const auto& [key, names] : used) {
    for (const std::string& name : names) pending.emplace_back(key, name);
  }
  while (!pending.empty()) {
    auto [key, name] = std::move(pending.back());
    pending.pop_back();
    const json& section = SectionOf(remote, key);
    auto it = section.find(name);
    if (it == section.end()) continue;  // a dangling reference stays dangling
    Names more;
    CollectRefs(*it, more);
    for (const auto& [more_key, more_names] : more) {
      for (const std::string& more_name : more_names) {
        if (used[more_key].insert(more_name).second) pending.emplace_back(more_key, more_name);
      }
    }
  }
  return used;
}

}  // namespace

void MergeSwagger(json& into, const json& remote, std::string_view prefix) {
  if (!remote.is_object() || !into.is_object()) return;
  json paths = json::object();
  for (const auto& [path, item] : SectionOf(remote, "paths").items()) {
    if (!path.starts_with(prefix)) continue;
    if (into.contains("paths") && into["paths"].contains(path)) continue;
    paths[path] = item;
  }
  if (paths.empty()) return;
  const Names used = UsedBy(paths, remote);

  // Where each used object goes in `into`; those not listed in `added` are shared.
  Renames renames;
  std::vector<std::pair<std::string_view, std::string>> added;  // section, name in remote
  for (const auto& [key, names] : used) {
    const json& theirs = SectionOf(remote, key);
    const json& ours = SectionOf(into, key);
    for (const std::string& name : names) {
      auto it = theirs.find(name);
      if (it == theirs.end()) continue;
      std::string target = name;
      if (ours.contains(name) && ours[name] != *it) {
        for (int i = 2;; ++i) {
          const std::string candidate = name + "_v" + std::to_string(i);
          if (ours.contains(candidate)) {
            if (ours[candidate] != *it) continue;
          } else if (theirs.contains(candidate)) {
            continue;
          }
          target = candidate;  // free, or renamed so by an earlier merge
          break;
        }
      }
      if (target != name) renames[key][name] = target;
      if (!ours.contains(target)) added.emplace_back(key, name);
    }
  }
  for (const auto& [key, name] : added) {
    json copy = remote[std::string(key)][name];
    RewriteRefs(copy, renames);
    auto by_section = renames.find(key);
    std::string target = name;
    if (by_section != renames.end() && by_section->second.contains(name)) {
      target = by_section->second.at(name);
    }
    into[std::string(key)][target] = std::move(copy);
  }
  for (auto& [path, item] : paths.items()) {
    RewriteRefs(item, renames);
    into["paths"][path] = std::move(item);
  }
}

}  // namespace endpoints::openapi
