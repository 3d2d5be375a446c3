#include "core/jobs/user_job_file.h"

#include <bit>

#include "core/jobs/file_errors.h"
#include "core/model/quote.h"

namespace tq {

namespace {

// Why `job` may not be in a user's own job file, or Ok.
Status CheckUserJob(const JobDef& job, const std::string& user) {
  const Resources& r = job.resources;
  const auto refuse = [&](const char* key, const std::string& why) {
    return Status(ErrorCode::kConfig, key, JobWhere(job, key) + key + ": " + why);
  };
  if (r.nice && *r.nice < 0)
    return refuse("nice", std::to_string(*r.nice) +
                              " is not allowed in a user's job file (use 0 to 19: only root "
                              "raises a priority)");
  if (r.ionice && r.ionice->rfind("realtime", 0) == 0)
    return refuse("ionice", Quote(*r.ionice) +
                                " is not allowed in a user's job file (use idle or "
                                "best-effort)");
  if (r.nofile || r.nproc || r.core)
    return refuse(r.nofile  ? "nofile"
                  : r.nproc ? "nproc"
                            : "core",
                  "is not allowed in a user's job file (limits are set by the system's job "
                  "files and by the queues of tqd.toml)");
  if (r.cpu_weight && *r.cpu_weight > kEvenCpuWeight)
    return refuse("cpu_weight", std::to_string(*r.cpu_weight) +
                                    " is not allowed in a user's job file (use 1 to 100: only "
                                    "root gives a task more than an even share)");
  if (!job.user.empty() && job.user != user)
    return refuse("user", Quote(job.user) + " is not allowed: the jobs of " + Quote(user) +
                              "'s job file run as " + Quote(user) + " (leave user out)");
  const CronExpr& s = job.schedule;
  if ((s.kind == CronKind::kEvery && s.every_ms < kMinUserIntervalMs) ||
      (s.kind == CronKind::kFields && std::popcount(s.seconds) > 1))
    return refuse("schedule", Quote(s.text) +
                                  " fires more than once a minute, more often than a user's job "
                                  "file may (use @every 1m or longer, or 5 cron fields)");
  return Status::Ok();
}

}  // namespace

int64_t UserFiringsPerDay(const CronExpr& schedule) {
  switch (schedule.kind) {
    case CronKind::kReboot:
      return 0;
    case CronKind::kEvery:
      return (24 * 3600 * 1000LL + schedule.every_ms - 1) / schedule.every_ms;
    case CronKind::kFields:
      break;
  }
  return static_cast<int64_t>(std::popcount(schedule.seconds)) * std::popcount(schedule.minutes) *
         std::popcount(schedule.hours);
}

Result<JobFile> ParseUserJobFile(std::string_view text, const std::string& path,
                                 const std::string& user) {
  auto file = ParseJobFile(text, path);
  if (!file.ok()) return file;
  if (file->jobs.size() > kMaxUserJobs)
    return Status(ErrorCode::kConfig, "job",
                  path + ":" + std::to_string(file->jobs[kMaxUserJobs].line) +
                      ": job: " + std::to_string(file->jobs.size()) +
                      " jobs are more than a user's job file may hold (" +
                      std::to_string(kMaxUserJobs) + ")");
  FileErrors errors(path);
  int64_t per_day = 0;
  for (JobDef& job : file->jobs) {
    if (!errors.Add(CheckUserJob(job, user))) continue;
    per_day += UserFiringsPerDay(job.schedule);
    if (per_day > kMaxUserFiringsPerDay &&
        !errors.Add(Status(ErrorCode::kConfig, "schedule",
                           JobWhere(job, "schedule") + "schedule: with job " + Quote(job.name) +
                               " the file's jobs fire up to " + std::to_string(per_day) +
                               " times a day, more than a user's job file may (" +
                               std::to_string(kMaxUserFiringsPerDay) +
                               ": 100 a minute; fire less often, or ask root for a job in "
                               "the system's job files)")))
      break;
    job.user = user;
    job.name = user + "/" + job.name;
  }
  if (Status s = errors.Joined(); !s.ok()) return s;
  return file;
}

}  // namespace tq
