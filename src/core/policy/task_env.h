// The environment a task runs with: what the submitter had (in the system daemon without the
// variables that steer loaders and shells), or cron's clean one, plus the TQ_* variables that
// tell a task who it is.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/model/account.h"
#include "core/model/task.h"
#include "core/model/unit_use.h"

namespace tq {

/// Cron's environment for `owner` (SPEC 7): SHELL=/bin/sh, PATH=/usr/local/bin:/usr/bin:/bin,
/// HOME, USER and LOGNAME from the password database, LANG from /etc/default/locale if set.
std::vector<std::string> CronEnvironment(const Owner& owner);

/// True for a variable the system daemon never passes on from a submitter's environment: the
/// dynamic loader's (LD_*), those glibc ignores for setuid programs, and the shells' start-up
/// and parsing ones (BASH_ENV, ENV, IFS, exported bash functions, ...). SPEC 8.
bool IsUnsafeVariable(std::string_view name);

/// What a stage of a task with stages adds to its environment (SPEC 13).
struct StageEnvironment {
  std::string context_dir;             ///< TQ_CONTEXT: the task's context directory
  std::vector<std::string> passed_on;  ///< "NAME=VALUE" from earlier stages' $TQ_CONTEXT/env
  std::vector<std::string> left_out;   ///< why each line of that file left out was left out
};

/// The environment for one attempt: the captured environment, or with clean_env cron's
/// (CronEnvironment of the owner) with the spec's own entries over it (a job's `env`; empty for
/// `tq submit --clean-env`), then for a task with stages the entries `stage` passes on over it,
/// then TQ_TASK_ID, TQ_ATTEMPT, TQ_QUEUE, for a task with stages TQ_STAGE, TQ_STAGE_INDEX and
/// TQ_CONTEXT, for a shard TQ_SHARD_INDEX and TQ_SHARD_TOTAL, and the variables naming the
/// attempt's resource `units` (UnitEnvironment) set, replacing any given. With `account` (the
/// system daemon runs the task as that user) a captured environment loses every IsUnsafeVariable
/// and takes HOME, USER, LOGNAME and SHELL from the account, and cron's takes HOME, USER and
/// LOGNAME from it; entries over cron's are kept as written only for a run of a job (its job file's
/// `env`), a submitter's lose every IsUnsafeVariable too.
std::vector<std::string> AttemptEnvironment(const Task& task, int attempt,
                                            const Account* account = nullptr,
                                            const UnitGrant& units = UnitGrant(),
                                            const StageEnvironment& stage = StageEnvironment());

}  // namespace tq
