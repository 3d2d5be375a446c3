// What a firing of a job does while other runs of the same job exist (SPEC 7 "Overlap"): a pure
// decision from the job's overlap mode and how many of its runs are pending and running.
#pragma once

#include "core/jobs/job.h"

namespace tq {

/// The action of one firing.
enum class OverlapAction {
  kCreate,    ///< create the run's task
  kSkip,      ///< create nothing: a run is already pending or running (overlap = skip)
  kCoalesce,  ///< create nothing: a run already waits behind the running one (overlap = queue)
  kReplace,   ///< end the pending runs, stop the running ones, then create the new run
};

/// The decision, and whether the new task is exclusive: it may start only while no other run of
/// its job is running (the store holds it until then).
struct OverlapDecision {
  OverlapAction action = OverlapAction::kCreate;
  bool exclusive = true;
};

/// The decision for a firing of a job with `overlap` while `pending` of its runs wait and
/// `running` run. `force` (`tq jobs run --force`) always creates a run that is not exclusive.
OverlapDecision DecideOverlap(Overlap overlap, int pending, int running, bool force);

/// The decision for a catch-up run of misfire = "run_all" (a missed firing after the first of
/// one plan): with any overlap but allow, an exclusive run, which waits behind the runs before
/// it: one run per missed firing, one at a time, up to max_catch_up. With allow, as a firing.
OverlapDecision DecideCatchUp(Overlap overlap);

/// "create", "skip", "coalesce", "replace": for logs and replies.
const char* OverlapActionName(OverlapAction action);

}  // namespace tq
