#include "pkg/genericserver/registry/table.h"

#include <nlohmann/json.hpp>

#include "pkg/genericserver/registry/object_meta.h"

namespace registry {

using nlohmann::json;

std::optional<IncludeObject> ParseIncludeObject(std::string_view value) {
  if (value.empty() || value == "Metadata") return IncludeObject::kMetadata;
  if (value == "None") return IncludeObject::kNone;
  if (value == "Object") return IncludeObject::kObject;
  return std::nullopt;
}

json TableColumnDefinitions(const ResourceSpec& spec) {
  json columns = json::array();
  auto add = [&](const TableColumn& c) {
    columns.push_back({{"name", c.name},
                       {"type", c.type},
                       {"format", c.format},
                       {"description", c.description},
                       {"priority", c.priority}});
  };
  if (spec.columns.empty()) {
    add({"Name", "string", "name", "The object's name.", 0});
    add({"Created At", "date", "", "When the object was created.", 0});
  } else {
    for (const TableColumn& c : spec.columns) add(c);
  }
  return columns;
}

json PartialObjectMetadata(const json& object, const std::string& meta_version) {
  return {{"apiVersion", "meta.k8s.io/" + meta_version},
          {"kind", "PartialObjectMetadata"},
          {"metadata", object.value("metadata", json::object())}};
}

json TableRow(const ResourceSpec& spec, const json& object, IncludeObject include,
              const std::string& meta_version, std::chrono::system_clock::time_point now) {
  json cells;
  if (spec.row) {
    cells = spec.row(object, now);
  } else {
    const json& meta = object.value("metadata", json::object());
    cells = {meta.value("name", ""), meta.value("creationTimestamp", "")};
  }
  json row = {{"cells", std::move(cells)}};
  if (include == IncludeObject::kMetadata)
    row["object"] = PartialObjectMetadata(object, meta_version);
  if (include == IncludeObject::kObject) row["object"] = object;
  return row;
}

json Table(const ResourceSpec& spec, json rows, json list_metadata, const std::string& meta_version,
           bool with_columns) {
  json table = {{"apiVersion", "meta.k8s.io/" + meta_version},
                {"kind", "Table"},
                {"metadata", std::move(list_metadata)},
                {"rows", std::move(rows)}};
  table["columnDefinitions"] = with_columns ? TableColumnDefinitions(spec) : json(nullptr);
  return table;
}

std::string HumanDuration(std::chrono::system_clock::duration d) {
  using namespace std::chrono;
  if (d < -seconds(1)) return "<invalid>";
  if (d < seconds(0)) return "0s";
  const int64_t secs = duration_cast<seconds>(d).count();
  if (secs < 60 * 2) return std::to_string(secs) + "s";
  const int64_t mins = secs / 60;
  if (mins < 10) {
    const int64_t s = secs % 60;
    return std::to_string(mins) + "m" + (s ? std::to_string(s) + "s" : "");
  }
  if (mins < 60 * 3) return std::to_string(mins) + "m";
  const int64_t hours = mins / 60;
  if (hours < 8) {
    const int64_t m = mins % 60;
    return std::to_string(hours) + "h" + (m ? std::to_string(m) + "m" : "");
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    const int64_t h = hours % 24;
    return std::to_string(hours / 24) + "d" + (h ? std::to_string(h) + "h" : "");
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    const int64_t dy = (hours / 24) % 365;
    return std::to_string(hours / 24 / 365) + "y" + (dy ? std::to_string(dy) + "d" : "");
  }
  return std::to_string(hours / 24 / 365) + "y";
}

std::string Age(const json& object, std::chrono::system_clock::time_point now) {
  auto meta = object.find("metadata");
  if (meta == object.end()) return "<unknown>";
  auto ts = meta->find("creationTimestamp");
  if (ts == meta->end() || !ts->is_string()) return "<unknown>";
  auto t = ParseTime(ts->get<std::string>());
  if (!t) return "<unknown>";
  return HumanDuration(now - *t);
}

}  // namespace registry
