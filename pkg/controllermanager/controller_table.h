#pragma once
// The init function of every controller this project implements, by canonical name. A
// controller upstream knows but this table lacks is accepted by --controllers and skipped
// when it would start. Adding a controller is one folder under pkg/controller and one line
// in controller_table.cc.

#include <map>
#include <string>

#include "pkg/controller/controller_context.h"

namespace controllermanager {

const std::map<std::string, controller::InitFunc>& ControllerInitializers();

}  // namespace controllermanager
