// The "ping" request: liveness and versions.
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// Liveness and versions. Response: {"version", "proto", "pid"}.
struct PingRequest {};
/// A ping request's body read from its frame, every field checked.
Result<PingRequest> DecodePing(const nlohmann::json& body);
/// The body of a ping request's frame.
nlohmann::json EncodePing(const PingRequest& request);

}  // namespace tq
