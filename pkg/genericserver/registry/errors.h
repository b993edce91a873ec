#pragma once
// The one place where storage errors become API errors (upstream's storeerr).

#include <string_view>

#include "pkg/genericserver/apimachinery/status.h"
#include "pkg/genericserver/storage/errors.h"

namespace registry {

apimachinery::Status ToStatus(const storage::StorageError& error,
                              const apimachinery::GroupResource& resource, std::string_view name);

}  // namespace registry
