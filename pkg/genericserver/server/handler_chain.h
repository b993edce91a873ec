#pragma once
#include "pkg/genericserver/server/config.h"
#include "pkg/genericserver/server/handler.h"

namespace genericserver {
// Wraps the director in every filter, in the one order documented in handler_chain.cc.
// The director is borrowed and must outlive the chain.
HandlerPtr BuildHandlerChain(Handler& director, const CompletedConfig& config);
}  // namespace genericserver
