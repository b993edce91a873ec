#pragma once
// additionalPrinterColumns as upstream's custom resource table convertor prints them: a
// Name column, then each column's JSONPath value formatted by its type (a "date" becomes an
// age, a missing value an empty cell). Without columns: Name and Age.

#include <nlohmann/json_fwd.hpp>

#include "pkg/genericserver/registry/resource_spec.h"

namespace apiextensions {

// Sets spec.columns and spec.row from a CRD version's additionalPrinterColumns.
void AddPrinterColumns(registry::ResourceSpec& spec, const nlohmann::json& columns);

}  // namespace apiextensions
