// Handing out resource units (SPEC 14): whether a request can ever be met, which units a task
// gets when it starts, what it still waits for, and how it learns its units.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/model/status.h"
#include "core/model/unit_holder.h"
#include "core/model/unit_use.h"

namespace tq {

/// The units running attempts hold, by resource.
using UnitsHeld = std::map<std::string, std::set<std::string>>;

/// The units `holders` (the running attempts) hold, by resource.
UnitsHeld UnitsHeldBy(const std::vector<UnitHolder>& holders);

/// The units `request` gets now: of each resource, the first free units in the pool's order;
/// nullopt when some resource has too few free (or is not configured any more).
std::optional<UnitGrant> GrantUnits(const UnitRequest& request, const UnitPools& pools,
                                    const UnitsHeld& held);

/// The first resource (by name) whose free units are too few for `request`; "" when it fits.
std::string ShortResource(const UnitRequest& request, const UnitPools& pools,
                          const UnitsHeld& held);

/// The variables that tell a task its units, as (name, value): TQ_RESOURCE_NAME=u1,u2 for each
/// resource, and CUDA_VISIBLE_DEVICES for the resource named gpu.
std::vector<std::pair<std::string, std::string>> UnitEnvironment(const UnitGrant& grant);

}  // namespace tq
