// The "resources" request (`tq resources`, SPEC 14): each resource of tqd.toml's [resources],
// its units and the tasks that hold them.
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// The resources and their units. Response: {"resources": [{"name", "total", "in_use",
/// "units": [{"name", "task": the holder's id (null when free, or when the caller may not see
/// it), "in_use", "configured": false for a unit a reload took out of [resources] while a task
/// still holds it}]}]}.
struct ResourcesRequest {};
/// A resources request's body read from its frame, every field checked.
Result<ResourcesRequest> DecodeResources(const nlohmann::json& body);
/// The body of a resources request's frame.
nlohmann::json EncodeResources(const ResourcesRequest& request);

}  // namespace tq
