// The task of one run of a cron job (SPEC 7): an ordinary task labelled job:NAME that carries
// its job, with cron's environment and the job's settings.
#pragma once

#include <string>

#include "core/jobs/job.h"
#include "core/model/task.h"

namespace tq {

/// The spec of a run of `job`: labelled "job:NAME" with `job` set; cron's clean environment with
/// the job's `env` over it; its command, argv or stages as SetJobCommand (core/jobs/job_command.h)
/// writes them; the job's cwd, else `home`; its stdin, queue, priority, timeout and pending_ttl;
/// `retry` (the queue's defaults with the job's overrides); `not_before` (0: at once);
/// `exclusive` (DecideOverlap).
TaskSpec JobTaskSpec(const JobDef& job, const std::string& home, RetryPolicy retry,
                     WallMs not_before, bool exclusive);

}  // namespace tq
