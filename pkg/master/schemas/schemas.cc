#include "pkg/master/schemas/schemas.h"

#include "pkg/master/schemas/descriptions.h"

#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>

#include <nlohmann/json.hpp>

#include "pkg/master/schemas/generated/documents.h"

namespace schemas {
namespace {

using generated::Document;
using generated::Documents;

const Document* FindDocument(std::string_view group_version) {
  for (const Document& document : Documents()) {
    if (document.group_version == group_version) return &document;
  }
  return nullptr;
}

// One parsed document; `components` is null when the embedded JSON does not parse (which the
// unit tests rule out).
struct Parsed {
  std::once_flag once;
  std::unique_ptr<const nlohmann::json> components;
};

// One slot per generated document, in the same order.
Parsed& SlotOf(const Document& document) {
  static const std::unique_ptr<Parsed[]> slots(new Parsed[Documents().size()]);
  return slots[static_cast<std::size_t>(&document - Documents().data())];
}

std::unique_ptr<const nlohmann::json> Parse(const Document& document) {
  std::string text;
  std::size_t size = 0;
  for (std::string_view piece : document.schemas) size += piece.size();
  text.reserve(size);
  for (std::string_view piece : document.schemas) text += piece;
  auto parsed = nlohmann::json::parse(text, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) return nullptr;
  AddDescriptions(parsed);
  return std::make_unique<const nlohmann::json>(std::move(parsed));
}

std::vector<std::string> SplitVerbs(std::string_view verbs) {
  std::vector<std::string> out;
  while (!verbs.empty()) {
    std::size_t space = verbs.find(' ');
    out.emplace_back(verbs.substr(0, space));
    verbs = space == std::string_view::npos ? std::string_view() : verbs.substr(space + 1);
  }
  return out;
}

std::string GroupVersion(std::string_view group, std::string_view version) {
  if (group.empty()) return std::string(version);
  std::string out(group);
  out += '/';
  out += version;
  return out;
}

}  // namespace

std::string_view UpstreamVersion() { return generated::kUpstreamVersion; }

std::vector<std::string> GroupVersions() {
  std::vector<std::string> out;
  for (const Document& document : Documents()) out.emplace_back(document.group_version);
  return out;
}

const nlohmann::json* Components(std::string_view group_version) {
  const Document* document = FindDocument(group_version);
  if (document == nullptr) return nullptr;
  Parsed& slot = SlotOf(*document);
  std::call_once(slot.once, [&] { slot.components = Parse(*document); });
  return slot.components.get();
}

std::optional<std::string> SchemaNameForKind(std::string_view group, std::string_view version,
                                             std::string_view kind) {
  auto matches = [&](const generated::Kind& k) {
    return k.group == group && k.version == version && k.kind == kind;
  };
  // The kind's own group-version first; then the documents that serve it as a subresource.
  if (const Document* own = FindDocument(GroupVersion(group, version))) {
    for (const generated::Kind& k : own->kinds) {
      if (matches(k)) return std::string(k.schema);
    }
  }
  for (const Document& document : Documents()) {
    for (const generated::Kind& k : document.kinds) {
      if (matches(k)) return std::string(k.schema);
    }
  }
  return std::nullopt;
}

std::vector<std::string> Kinds(std::string_view group_version) {
  std::vector<std::string> out;
  const Document* document = FindDocument(group_version);
  if (document == nullptr) return out;
  for (const generated::Kind& k : document->kinds) {
    if (GroupVersion(k.group, k.version) == group_version) out.emplace_back(k.kind);
  }
  return out;
}

std::vector<Resource> Resources(std::string_view group_version) {
  std::vector<Resource> out;
  const Document* document = FindDocument(group_version);
  if (document == nullptr) return out;
  for (const generated::Resource& r : document->resources) {
    out.push_back(Resource{std::string(r.name), r.namespaced, std::string(r.group),
                           std::string(r.version), std::string(r.kind), std::string(r.schema),
                           SplitVerbs(r.verbs)});
  }
  return out;
}

}  // namespace schemas
