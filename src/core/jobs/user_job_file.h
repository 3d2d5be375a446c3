// A user's own job file (`tq jobs install`, what `crontab -e` gives on a cron host): a job file
// whose jobs run as that user and carry the user's name in theirs, so no user can take a name the
// system's job files use, or run anything as someone else.
#pragma once

#include <string>
#include <string_view>

#include "core/jobs/job_file.h"

namespace tq {

/// The most jobs one user's job file holds: more than a crontab ever has, few enough that no
/// user's file fires thousands of tasks a minute.
constexpr size_t kMaxUserJobs = 1000;

/// Parses `text` as ParseJobFile does, for the user `user`: every job runs as `user` (a `user`
/// key naming anyone else is refused: "<path>:<line>: user: ...") and is named USER/NAME. What
/// only root may ask is refused too: more than kMaxUserJobs jobs, a negative `nice`, a realtime
/// `ionice`, and the limits `nofile`, `nproc` and `core`.
Result<JobFile> ParseUserJobFile(std::string_view text, const std::string& path,
                                 const std::string& user);

}  // namespace tq
