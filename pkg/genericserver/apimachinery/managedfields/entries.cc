#include "pkg/genericserver/apimachinery/managedfields/entries.h"

#include <algorithm>

namespace apimachinery::managedfields {

using nlohmann::json;

namespace {

std::string Str(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

std::expected<Entries, std::string> Decode(const json& object) {
  Entries out;
  if (!object.is_object()) return out;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return out;
  auto list = meta->find("managedFields");
  if (list == meta->end() || list->is_null()) return out;
  if (!list->is_array()) return std::unexpected(std::string("managedFields is not a list"));
  for (const json& item : *list) {
    if (!item.is_object())
      return std::unexpected(std::string("a managedFields entry is not an object"));
    Entry e;
    e.manager = Str(item, "manager");
    e.operation = Str(item, "operation");
    e.api_version = Str(item, "apiVersion");
    e.subresource = Str(item, "subresource");
    e.time = Str(item, "time");
    const std::string type = Str(item, "fieldsType");
    if (!type.empty() && type != "FieldsV1") {
      return std::unexpected("invalid fieldsType: " + type);
    }
    auto fields = item.find("fieldsV1");
    if (fields != item.end()) {
      auto set = fieldpath::Set::FromFieldsV1(*fields);
      if (!set) return std::unexpected("error decoding fieldsV1: " + set.error());
      e.set = std::move(*set);
    }
    out.push_back(std::move(e));
  }
  return out;
}

json Encode(Entries entries) {
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.operation != b.operation) return a.operation < b.operation;
    // RFC 3339 UTC seconds order as text; no time sorts first.
    if (a.time != b.time) return a.time < b.time;
    if (a.manager != b.manager) return a.manager < b.manager;
    if (a.api_version != b.api_version) return a.api_version < b.api_version;
    return a.subresource < b.subresource;
  });
  json out = json::array();
  for (const Entry& e : entries) {
    json item = json::object();
    if (!e.manager.empty()) item["manager"] = e.manager;
    if (!e.operation.empty()) item["operation"] = e.operation;
    if (!e.api_version.empty()) item["apiVersion"] = e.api_version;
    if (!e.time.empty()) item["time"] = e.time;
    item["fieldsType"] = "FieldsV1";
    item["fieldsV1"] = e.set.ToFieldsV1Json();
    if (!e.subresource.empty()) item["subresource"] = e.subresource;
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace apimachinery::managedfields
