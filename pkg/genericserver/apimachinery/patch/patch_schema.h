#pragma once
// What a strategic merge patch needs to know about an object's fields: upstream's
// LookupPatchMeta (k8s.io/apimachinery/pkg/util/strategicpatch/meta.go), fed there by the
// `patchStrategy` and `patchMergeKey` tags of the Go types, here by an implementation of
// PatchSchema (see openapi_patch_schema.h, or NoPatchSchema for unknown types).

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace apimachinery::patch {

class PatchSchema;

// x-kubernetes-patch-strategy without "retainKeys".
enum class PatchStrategy {
  kDefault,  // no strategy: maps merge, lists are replaced
  kMerge,    // lists merge: by the merge key (maps) or as a union (primitives)
  kReplace,  // maps and lists are replaced
};

struct FieldPatchInfo {
  // Whether the field is declared a list (informational: the merge follows the values).
  bool is_list = false;
  PatchStrategy strategy = PatchStrategy::kDefault;
  // "retainKeys" was among the strategies ("merge,retainKeys" or "retainKeys"). The server
  // honours a $retainKeys directive whatever the schema says, as upstream does.
  bool retain_keys = false;
  // x-kubernetes-patch-merge-key: the key list items are matched by; empty for primitives.
  std::string merge_key;
  // The list's items are primitives (strings, numbers), e.g. finalizers.
  bool primitive_items = false;
  // x-kubernetes-list-type and x-kubernetes-list-map-keys, informational: upstream's strategic
  // merge patch ignores them (only server-side apply reads them).
  std::string list_type;
  std::vector<std::string> list_map_keys;
  // The schema of the field's value (an object) or of its items (a list); never null.
  std::shared_ptr<const PatchSchema> schema;
};

// The patch metadata of one object type. Implementations are immutable and thread-safe.
class PatchSchema {
 public:
  virtual ~PatchSchema();

  // The metadata of the field `name` of objects of this type, or nullopt when the type has no
  // such field (upstream then fails: "unable to find api field in struct <Name()> for the
  // json field \"<name>\""). Types that are maps (additionalProperties) or free-form answer
  // for every name.
  virtual std::optional<FieldPatchInfo> Field(std::string_view name) const = 0;

  // The type's Go name for error messages, e.g. "PodSpec"; empty when unknown.
  virtual std::string Name() const = 0;
};

// The schema of a type nothing is known about (upstream's behaviour for unknown types): every
// field exists, maps merge and every list is replaced. Its children are itself.
std::shared_ptr<const PatchSchema> NoPatchSchema();

}  // namespace apimachinery::patch
