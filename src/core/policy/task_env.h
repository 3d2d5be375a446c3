// The environment a task runs with: what the submitter had, or cron's clean one, plus the
// TQ_* variables that tell a task who it is.
#pragma once

#include <string>
#include <vector>

#include "core/model/task.h"

namespace tq {

/// Cron's environment for `owner` (SPEC 7): SHELL=/bin/sh, PATH=/usr/local/bin:/usr/bin:/bin,
/// HOME, USER and LOGNAME from the password database, LANG from /etc/default/locale if set.
std::vector<std::string> CronEnvironment(const Owner& owner);

/// The environment for one attempt: the captured environment, or with clean_env cron's
/// (CronEnvironment of the owner) with the spec's own entries over it (a job's `env`; empty for
/// `tq submit --clean-env`), then TQ_TASK_ID, TQ_ATTEMPT and TQ_QUEUE set (replacing any given).
std::vector<std::string> AttemptEnvironment(const Task& task, int attempt);

}  // namespace tq
