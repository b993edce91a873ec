#include "pkg/apiextensions/cel/rules.h"

#include <nlohmann/json.hpp>

namespace apiextensions::cel {

namespace {
// Placeholder; replaced by the CEL work.
class NoRules final : public RuleSet {
 public:
  FieldErrors Validate(const nlohmann::json&, const nlohmann::json*) const override { return {}; }
};
}  // namespace

std::expected<std::shared_ptr<const RuleSet>, FieldErrors> Compile(const nlohmann::json&,
                                                                   const std::string&) {
  return std::make_shared<NoRules>();
}

}  // namespace apiextensions::cel
