#pragma once
// The garbage-collector-controller's init function (upstream's
// startGarbageCollectorController): declines when --enable-garbage-collector=false, else
// starts the collector (collector.h) with --concurrent-gc-syncs workers per queue and a
// discovery sync every 30 s. It acts as the generic-garbage-collector controller's client
// and records its events as the garbage-collector-controller component.
//
// Threads: called once from the controller manager's start-up; it only spawns the
// collector's coroutines on a strand of its own and returns.

#include <expected>
#include <string>

#include "pkg/controller/controller_context.h"

namespace controller::garbagecollector {

std::expected<controller::InitResult, std::string> StartGarbageCollectorController(
    controller::ControllerContext& ctx);

}  // namespace controller::garbagecollector
