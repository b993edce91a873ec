#include "pkg/apiextensions/registry/printer_columns.h"

#include <nlohmann/json.hpp>

#include "pkg/apiextensions/registry/jsonpath.h"
#include "pkg/genericserver/apimachinery/schema/go_values.h"
#include "pkg/genericserver/registry/table.h"

namespace apiextensions {
namespace {

using nlohmann::json;

struct Column {
  std::string type;
  std::optional<jsonpath::Path> path;  // none: the path did not parse (an empty cell)
};

// The cell of a value that is not printed as text (upstream's cellForJSONValue).
json Cell(const std::string& type, const json& value, std::chrono::system_clock::time_point now) {
  if (type == "integer") {
    if (value.is_number_integer()) return value;
    if (value.is_number_float()) return static_cast<int64_t>(value.get<double>());
  } else if (type == "number") {
    if (value.is_number()) return value.get<double>();
  } else if (type == "boolean") {
    if (value.is_boolean()) return value;
  } else if (type == "string") {
    if (value.is_string()) return value;
  } else if (type == "date") {
    if (value.is_string()) {
      json probe = {{"metadata", {{"creationTimestamp", value}}}};
      const std::string text = value.get<std::string>();
      if (apimachinery::schema::GoTimeParseError(apimachinery::schema::kRFC3339, text)) {
        return "<invalid>";
      }
      return registry::Age(probe, now);
    }
  }
  return nullptr;
}

}  // namespace

void AddPrinterColumns(registry::ResourceSpec& spec, const json& definitions) {
  json given = definitions.is_array() ? definitions : json::array();
  if (given.empty()) {
    given.push_back(
        {{"name", "Age"}, {"type", "date"}, {"jsonPath", ".metadata.creationTimestamp"}});
  }
  spec.columns = {registry::NameColumn()};
  std::vector<Column> columns;
  for (const json& c : given) {
    if (!c.is_object()) continue;
    const std::string path = c.value("jsonPath", "");
    registry::TableColumn column;
    column.name = c.value("name", "");
    column.type = c.value("type", "string");
    column.format = c.value("format", "");
    column.description = c.value("description", "");
    if (column.description.empty()) {
      column.description = column.name == "Age" && path == ".metadata.creationTimestamp"
                               ? registry::AgeColumn().description
                               : "Custom resource definition column (in JSONPath format): " + path;
    }
    column.priority = c.value("priority", 0);
    spec.columns.push_back(std::move(column));
    Column printed{c.value("type", "string"), std::nullopt};
    if (auto parsed = jsonpath::Path::Parse(path)) printed.path = std::move(*parsed);
    columns.push_back(std::move(printed));
  }
  spec.row = [columns = std::move(columns)](const json& object,
                                            std::chrono::system_clock::time_point now) {
    std::vector<json> cells;
    const json& meta = object.value("metadata", json::object());
    cells.push_back(meta.value("name", ""));
    for (const Column& c : columns) {
      std::vector<json> found = c.path ? c.path->Find(object) : std::vector<json>();
      if (found.empty()) {
        cells.push_back(nullptr);
      } else if (c.type == "string") {
        cells.push_back(jsonpath::PrintValue(found.front()));
      } else {
        cells.push_back(Cell(c.type, found.front(), now));
      }
    }
    return cells;
  };
}

}  // namespace apiextensions
