// When a job fires (SPEC 7 "Missed runs"): from its last firing and the time now, which firings
// are due, which of them the misfire policy runs, and when the next one is. Pure: no clock, no
// store; the scheduler calls it at start, on each timer, and after a clock step.
#pragma once

#include <optional>
#include <vector>

#include "core/cron/cron_zone.h"
#include "core/jobs/job.h"
#include "core/model/clock.h"
#include "core/model/status.h"

namespace tq {

/// A due firing handled this much after its time or sooner is on time and fires whatever the
/// misfire policy says; an older one was missed. A minute, like Quartz's misfire threshold: a
/// busy or briefly stopped daemon is not a missed run.
constexpr int64_t kMisfireGraceMs = 60 * 1000;

/// What to do for one job now.
struct FiringPlan {
  std::vector<WallMs> fire;    ///< scheduled times to fire now, oldest first
  WallMs last = 0;             ///< the job's last firing after this plan (fired or dropped)
  int dropped = 0;             ///< missed firings the policy does not run (capped count)
  std::optional<WallMs> next;  ///< the next scheduled time after `now` and `last`; none: never
};

/// Plans job `job` (its schedule, misfire, max_catch_up, max_lateness) in `zone`, given `last`
/// (its stored last firing, or when the store first saw it) and `now`. The due firings are those
/// in (last, now]; the latest is on time when now minus it is at most kMisfireGraceMs and then
/// fires; the others were missed: kSkip drops them, kRunOnce runs the latest one once (none more
/// when the latest is on time), kRunAll runs each of the latest max_catch_up. A missed firing
/// older than max_lateness (when set) is dropped. `last` after `now` (the clock stepped back)
/// fires nothing and `next` comes after `last`, so no time fires twice. The work is bounded by
/// max_catch_up and a logarithmic search, not by the length of the downtime. @reboot plans
/// nothing (the scheduler fires it once per boot). kInvalid only when NextFire refuses.
Result<FiringPlan> PlanFirings(const JobDef& job, const TimeZone& zone, WallMs last, WallMs now);

}  // namespace tq
