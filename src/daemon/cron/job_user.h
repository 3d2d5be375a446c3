// Whose a job's tasks are (SPEC 7 `user`): the daemon's own user, or in the system daemon the
// user the job names, looked up in the password database.
#pragma once

#include <sys/types.h>

#include <string>

#include "core/jobs/job.h"
#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// The owner of a job's tasks and the directory its runs start in when the job names no cwd.
struct JobUser {
  Owner owner;
  std::string home;  ///< from the password database; "/" when it names none
};

/// The user of `job` for a daemon running as `daemon_uid`: job.user "" is the daemon's own user.
/// A user daemon (daemon_uid not 0) refuses any other name; the system daemon refuses a name the
/// password database does not know. Refusals are kInvalid, field "user", message
/// "<file>:<line>: user: <reason>".
Result<JobUser> JobUserOf(const JobDef& job, uid_t daemon_uid);

}  // namespace tq
