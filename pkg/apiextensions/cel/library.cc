// The CEL function library for CRD validation rules: every overload's signature and
// implementation. Runtime error texts are cel-go's where known ("no such overload",
// "integer overflow", "division by zero", "index out of range: 5", ...); the Kubernetes
// libraries' texts are upstream's ("min called on empty list", "cannot convert value to
// integer", "URL parse error during conversion from string: ...").
//
// Costs follow the spirit of cel-go's and Kubernetes' cost model: 1 per call plus a share of
// the size of strings and lists traversed (0.1 per byte, 1 per list element, regex matching
// as string cost x pattern cost).
//
// One file a library under library/ (internal.h is what they share); this one holds the
// registry and the run-time dispatch helpers.

#include <string>
#include <string_view>
#include <vector>

#include "pkg/apiextensions/cel/functions.h"
#include "pkg/apiextensions/cel/library/internal.h"

namespace apiextensions::cel {

bool IsQualifiedFunction(std::string_view name) {
  return name == "optional.of" || name == "optional.none" || name == "optional.ofNonZeroValue" ||
         name == "sets.contains" || name == "sets.equivalent" || name == "sets.intersects" ||
         name == "strings.quote" || name == "ip.isCanonical";
}

bool RuntimeMatches(const Overload& o, const std::vector<Value>& args) {
  if (o.params.size() != args.size()) return false;
  for (size_t k = 0; k < args.size(); ++k) {
    const Value& v = args[k];
    switch (o.params[k]->kind) {
      case TypeKind::kDyn:
      case TypeKind::kParam:
        break;
      case TypeKind::kNull:
        if (v.kind != Kind::kNull) return false;
        break;
      case TypeKind::kBool:
        if (v.kind != Kind::kBool) return false;
        break;
      case TypeKind::kInt:
        if (v.kind != Kind::kInt) return false;
        break;
      case TypeKind::kUint:
        if (v.kind != Kind::kUint) return false;
        break;
      case TypeKind::kDouble:
        if (v.kind != Kind::kDouble) return false;
        break;
      case TypeKind::kString:
        if (v.kind != Kind::kString) return false;
        break;
      case TypeKind::kBytes:
        if (v.kind != Kind::kBytes) return false;
        break;
      case TypeKind::kDuration:
        if (v.kind != Kind::kDuration) return false;
        break;
      case TypeKind::kTimestamp:
        if (v.kind != Kind::kTimestamp) return false;
        break;
      case TypeKind::kList:
        if (v.kind != Kind::kList) return false;
        break;
      case TypeKind::kMap:
        if (v.kind != Kind::kMap) return false;
        break;
      case TypeKind::kObject:
        if (v.kind != Kind::kObject) return false;
        break;
      case TypeKind::kType:
        if (v.kind != Kind::kType) return false;
        break;
      case TypeKind::kQuantity:
        if (v.kind != Kind::kQuantity) return false;
        break;
      case TypeKind::kUrl:
        if (v.kind != Kind::kUrl) return false;
        break;
      case TypeKind::kIP:
        if (v.kind != Kind::kIP) return false;
        break;
      case TypeKind::kCIDR:
        if (v.kind != Kind::kCIDR) return false;
        break;
      case TypeKind::kOptional:
        if (v.kind != Kind::kOptional) return false;
        break;
      case TypeKind::kError:
        return false;
    }
  }
  return true;
}

namespace internal {

namespace {

const Registry& GetRegistry() {
  static const Registry registry = [] {
    Registry r;
    Builder b(r);
    RegisterOperators(b);
    RegisterConversions(b);
    RegisterTime(b);
    RegisterStrings(b);
    RegisterLists(b);
    RegisterOptional(b);
    RegisterQuantity(b);
    RegisterUrls(b);
    RegisterNet(b);
    return r;
  }();
  return registry;
}

}  // namespace

}  // namespace internal

const std::vector<Overload>* FindFunction(std::string_view name) {
  const auto& r = internal::GetRegistry();
  auto it = r.find(std::string(name));
  return it == r.end() ? nullptr : &it->second;
}

}  // namespace apiextensions::cel
