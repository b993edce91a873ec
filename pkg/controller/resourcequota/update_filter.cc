#include "pkg/controller/resourcequota/update_filter.h"

#include "pkg/controller/resourcequota/pods.h"
#include "pkg/controller/resourcequota/services.h"

namespace controller::resourcequota {

using nlohmann::json;

bool RequiresReplenishment(const GroupResource& gr, const json& old_object, const json& object,
                           TimePoint now) {
  if (!gr.group.empty()) return false;
  if (gr.resource == "pods") {
    const PodEvaluator pods;
    return QuotaV1Pod(old_object, now) != QuotaV1Pod(object, now) ||
           IsTerminating(old_object) != IsTerminating(object) ||
           IsBestEffort(old_object) != IsBestEffort(object) ||
           UsesCrossNamespacePodAffinity(old_object) != UsesCrossNamespacePodAffinity(object) ||
           !Equals(pods.Usage(old_object, now), pods.Usage(object, now));
  }
  if (gr.resource == "services") {
    const ServiceEvaluator services;
    return QuotaServiceType(old_object) != QuotaServiceType(object) ||
           !Equals(services.Usage(old_object, now), services.Usage(object, now));
  }
  return gr.resource == "persistentvolumeclaims";
}

}  // namespace controller::resourcequota
