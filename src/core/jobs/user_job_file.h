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
/// The shortest interval of a job in a user's job file: cron's finest, a minute.
constexpr int64_t kMinUserIntervalMs = 60 * 1000;
/// The most firings a user's job file may make in a day, counting each job's busiest schedule
/// (UserFiringsPerDay): 100 a minute on average, so one user's file never keeps tqd busy.
constexpr int64_t kMaxUserFiringsPerDay = 100 * 24 * 60;

/// How many times a day `schedule` fires at most: for calendar fields, its seconds x minutes x
/// hours (as if every day matched); for @every, a day over its interval; 0 for @reboot.
int64_t UserFiringsPerDay(const CronExpr& schedule);

/// Parses `text` as ParseJobFile does, for the user `user`: every job runs as `user` (a `user`
/// key naming anyone else is refused: "<path>:<line>: user: ...") and is named USER/NAME. What
/// only root may ask is refused too: more than kMaxUserJobs jobs, a negative `nice`, a realtime
/// `ionice`, the limits `nofile`, `nproc` and `core`, a schedule that fires more often than
/// once in kMinUserIntervalMs, and jobs that together fire more than kMaxUserFiringsPerDay.
Result<JobFile> ParseUserJobFile(std::string_view text, const std::string& path,
                                 const std::string& user);

}  // namespace tq
