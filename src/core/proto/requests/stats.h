// The "stats" request: `tq stats`, the daemon's counts and counters (SPEC 11 metrics).
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// The metrics snapshot. Response: {"stats": MetricsToJson's form}. Counts cover every user's
/// tasks: they name no task, command or user.
struct StatsRequest {};
/// A stats request's body read from its frame, every field checked.
Result<StatsRequest> DecodeStats(const nlohmann::json& body);
/// The body of a stats request's frame.
nlohmann::json EncodeStats(const StatsRequest& request);

}  // namespace tq
