// The dead man's switch of a job (SPEC 7a): `expect_success_within` raises one alert when no run
// has succeeded for that long, whatever the reason (it failed, never fired, tqd was down).
#pragma once

#include <cstdint>
#include <optional>

#include "core/model/clock.h"

namespace tq {

/// Where a job's switch stands at one instant.
struct OverdueState {
  WallMs since = 0;  ///< the start of the stretch: its last success, else when it was first seen
  bool overdue = false;  ///< no success for the whole window
  bool alert = false;    ///< overdue, and no alert was raised for this stretch yet
  WallMs deadline = 0;   ///< when the stretch becomes overdue (since + within)
};

/// The switch of a job with `within_ms` (> 0), first known to the store at `first_seen`, last
/// successful at `last_success` (none: never), alerted last for the stretch starting at
/// `alerted` (none: never), at `now`.
OverdueState CheckOverdue(int64_t within_ms, WallMs first_seen, std::optional<WallMs> last_success,
                          std::optional<WallMs> alerted, WallMs now);

}  // namespace tq
