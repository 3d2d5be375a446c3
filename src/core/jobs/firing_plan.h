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
/// run_all runs at most this many firings whatever max_catch_up says (the job file's limit);
/// a max_catch_up below 1 reads as 1.
constexpr int kMaxCatchUp = 1000;
/// FiringPlan::dropped counts no further: a plan dropping this many dropped at least this many.
/// Counting walks the dropped firings, so the cap bounds the work of a long downtime.
constexpr int kMaxDroppedCount = 100;

/// What to do for one job now.
struct FiringPlan {
  std::vector<WallMs> fire;  ///< scheduled times to fire now, oldest first
  WallMs last = 0;           ///< the job's last firing after this plan (fired or dropped)
  int dropped = 0;  ///< due firings not run that were missed (older than the grace); capped
  /// Due firings not run that were merely late: within the grace, overtaken by a later one that
  /// runs (a busy daemon, a job firing every second); capped as `dropped` is.
  int late = 0;
  std::optional<WallMs> next;  ///< the next scheduled time after `now` and `last`; none: never
};

/// Plans job `job` (its schedule, misfire, max_catch_up, max_lateness) in `zone`, given `last`
/// (its stored last firing, or when the store first saw it) and `now`. The due firings are those
/// in (last, now]; the latest is on time when now minus it is at most kMisfireGraceMs and then
/// fires; the others were missed: kSkip drops them, kRunOnce runs the latest one once (none more
/// when the latest is on time), kRunAll runs each of the latest max_catch_up (the on-time one
/// among them). A missed firing later than max_lateness (when set) is dropped; the on-time one
/// is not. `last` at or after `now` (the clock stepped back) fires nothing and `next` comes after
/// `last`, so no time fires twice. @every fires at `last` plus whole intervals, and `next` is the
/// plan's `last` plus one interval. The work is bounded by max_catch_up, kMaxDroppedCount and a
/// logarithmic search, not by the length of the downtime. @reboot plans nothing and has no
/// `next` (the scheduler fires it once per boot). kInvalid only when NextFire refuses (a time
/// outside the years 0001..9999).
Result<FiringPlan> PlanFirings(const JobDef& job, const TimeZone& zone, WallMs last, WallMs now);

/// What job `job` records as its last firing when it arrives at `now` (new in the jobs, enabled
/// again, or at a start), so that no time before `now` is caught up, given `last` (as
/// PlanFirings's): now - 1, or for @every the latest time of its grid (`last` plus whole
/// intervals) at or before now - 1, so that the hosts sharing a store, each anchoring the job as
/// it loads it, keep the one grid the store holds (SPEC 12). `last` itself when it is not before
/// that time.
WallMs ArrivalMark(const JobDef& job, WallMs last, WallMs now);

}  // namespace tq
