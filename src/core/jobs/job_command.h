// How a cron job's command becomes the command of each of its runs' tasks (SPEC 7, 13): a
// command line run by the job's shell, an argv run directly, or stages, each one of those.
#pragma once

#include "core/jobs/job.h"
#include "core/model/task.h"

namespace tq {

/// Writes the command of a run of `job` into `spec` (its argv, shell and stages): a `command`
/// as spec.shell (the daemon's /bin/sh -c) when the job's shell is /bin/sh, else as argv {shell,
/// "-c", command}; an `argv` as it is; `stages` each the same way by the job's shell, leaving
/// the task's own argv and shell empty.
void SetJobCommand(const JobDef& job, TaskSpec* spec);

}  // namespace tq
