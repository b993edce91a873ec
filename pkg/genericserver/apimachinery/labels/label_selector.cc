#include "pkg/genericserver/apimachinery/labels/label_selector.h"

#include <nlohmann/json.hpp>

namespace apimachinery::labels {

using nlohmann::json;

std::expected<std::optional<Selector>, std::string> FromLabelSelector(const json& ls) {
  if (ls.is_null()) return std::optional<Selector>();
  if (!ls.is_object()) return std::unexpected("a label selector must be an object");
  std::vector<Requirement> requirements;
  if (auto ml = ls.find("matchLabels"); ml != ls.end() && ml->is_object()) {
    for (const auto& [key, value] : ml->items()) {
      auto r = NewRequirement(key, Operator::kEquals,
                              {value.is_string() ? value.get<std::string>() : std::string()});
      if (!r) return std::unexpected(r.error());
      requirements.push_back(std::move(*r));
    }
  }
  if (auto me = ls.find("matchExpressions"); me != ls.end() && me->is_array()) {
    for (const json& e : *me) {
      const std::string op = e.value("operator", "");
      Operator o;
      if (op == "In") {
        o = Operator::kIn;
      } else if (op == "NotIn") {
        o = Operator::kNotIn;
      } else if (op == "Exists") {
        o = Operator::kExists;
      } else if (op == "DoesNotExist") {
        o = Operator::kDoesNotExist;
      } else {
        return std::unexpected("\"" + op + "\" is not a valid label selector operator");
      }
      std::vector<std::string> values;
      if (auto v = e.find("values"); v != e.end() && v->is_array()) {
        for (const json& x : *v) {
          if (x.is_string()) values.push_back(x.get<std::string>());
        }
      }
      auto r = NewRequirement(e.value("key", ""), o, std::move(values));
      if (!r) return std::unexpected(r.error());
      requirements.push_back(std::move(*r));
    }
  }
  return std::optional<Selector>(Selector(std::move(requirements)));
}

std::map<std::string, std::string> LabelsOf(const json& object) {
  std::map<std::string, std::string> out;
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return out;
  auto l = m->find("labels");
  if (l == m->end() || !l->is_object()) return out;
  for (const auto& [k, v] : l->items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

}  // namespace apimachinery::labels
