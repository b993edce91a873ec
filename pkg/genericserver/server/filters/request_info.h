#pragma once
#include <memory>

#include "pkg/genericserver/endpoints/request_info.h"
#include "pkg/genericserver/server/handler.h"

namespace genericserver::filters {
// Fills ctx.info from the request line before any other filter needs it.
HandlerPtr WithRequestInfo(HandlerPtr next,
                           std::shared_ptr<const endpoints::RequestInfoResolver> resolver);
}  // namespace genericserver::filters
