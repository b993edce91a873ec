#include "pkg/genericserver/apimachinery/patch/patch_schema.h"

namespace apimachinery::patch {

PatchSchema::~PatchSchema() = default;

namespace {

class NoSchema final : public PatchSchema {
 public:
  std::optional<FieldPatchInfo> Field(std::string_view) const override {
    FieldPatchInfo info;
    info.schema = NoPatchSchema();
    return info;
  }
  std::string Name() const override { return ""; }
};

}  // namespace

std::shared_ptr<const PatchSchema> NoPatchSchema() {
  static const std::shared_ptr<const PatchSchema> instance = std::make_shared<const NoSchema>();
  return instance;
}

}  // namespace apimachinery::patch
