#include "pkg/apiextensions/naming.h"

#include <set>

#include <nlohmann/json.hpp>

namespace apiextensions {

using nlohmann::json;

namespace {

std::string Str(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

std::vector<std::string> Strs(const json& o, const char* key) {
  std::vector<std::string> out;
  auto it = o.find(key);
  if (it == o.end() || !it->is_array()) return out;
  for (const json& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

const json& Sub(const json& o, const char* key) {
  static const json kEmpty = json::object();
  auto it = o.find(key);
  return it != o.end() && it->is_object() ? *it : kEmpty;
}

}  // namespace

NamingResult AcceptNames(const json& crd, const std::vector<const json*>& others) {
  const json& requested = Sub(Sub(crd, "spec"), "names");
  const json& current = Sub(Sub(crd, "status"), "acceptedNames");
  const std::string group = crd.contains("spec") ? Str(crd["spec"], "group") : "";
  std::set<std::string> names, kinds;
  for (const json* other : others) {
    if (!other->contains("spec") || Str((*other)["spec"], "group") != group) continue;
    const json& theirs = Sub(Sub(*other, "status"), "acceptedNames");
    for (const char* key : {"plural", "singular"}) {
      if (!Str(theirs, key).empty()) names.insert(Str(theirs, key));
    }
    for (const std::string& s : Strs(theirs, "shortNames")) names.insert(s);
    for (const char* key : {"kind", "listKind"}) {
      if (!Str(theirs, key).empty()) kinds.insert(Str(theirs, key));
    }
  }
  NamingResult r;
  r.accepted_names = current.is_object() ? current : json::object();
  // Names are checked in upstream's order and a later conflict replaces the reported one.
  auto conflict = [&](const char* reason, const std::string& name) {
    r.reason = reason;
    r.message = "\"" + name + "\" is already in use";
  };
  // A name is free when no other CRD took it; a name this CRD holds stays its own.
  auto check = [&](const char* key, const std::set<std::string>& used, const char* reason) {
    const std::string wanted = Str(requested, key);
    if (!wanted.empty() && used.contains(wanted)) {
      conflict(reason, wanted);
    } else {
      r.accepted_names[key] = wanted;
    }
  };
  check("plural", names, "PluralConflict");
  check("singular", names, "SingularConflict");
  bool short_ok = true;
  for (const std::string& s : Strs(requested, "shortNames")) {
    if (names.contains(s)) {
      conflict("ShortNamesConflict", s);
      short_ok = false;
    }
  }
  if (short_ok) {
    if (requested.contains("shortNames")) {
      r.accepted_names["shortNames"] = requested["shortNames"];
    } else {
      r.accepted_names.erase("shortNames");
    }
  }
  check("kind", kinds, "KindConflict");
  check("listKind", kinds, "ListKindConflict");
  if (requested.contains("categories")) {
    r.accepted_names["categories"] = requested["categories"];
  } else {
    r.accepted_names.erase("categories");
  }
  for (const char* key : {"singular", "listKind"}) {
    if (r.accepted_names.contains(key) && r.accepted_names[key] == "") r.accepted_names.erase(key);
  }
  r.accepted = r.reason.empty();
  if (r.accepted) {
    r.reason = "NoConflicts";
    r.message = "no conflicts found";
  }
  return r;
}

}  // namespace apiextensions
