#include "daemon/cron/config_check.h"

#include "core/cron/cron_zone.h"
#include "core/policy/unit_grant.h"
#include "daemon/cron/job_dir.h"
#include "daemon/cron/job_set.h"
#include "daemon/cron/job_user.h"
#include "daemon/users/spool.h"

namespace tq {

Result<JobFilesChecked> CheckJobFiles(const std::string& jobs_dir, const std::string& spool_dir,
                                      uid_t daemon_uid, const UnitPools& pools) {
  std::vector<JobFileRead> files;
  auto listed = ReadJobDir(jobs_dir, /*strict_owner=*/daemon_uid == 0);
  if (!listed.ok()) return Status(ErrorCode::kConfig, "jobs_dir", listed.status().message());
  files = std::move(*listed);
  if (!spool_dir.empty()) {
    const Spool spool(spool_dir);
    auto own = ReadJobDir(spool_dir, /*strict_owner=*/false);
    if (!own.ok()) return Status(ErrorCode::kConfig, "jobs_dir", own.status().message());
    for (JobFileRead& f : *own) {
      f.user = spool.UserOf(f.path);
      files.push_back(std::move(f));
    }
  }
  const JobCheck check = [&](const JobDef& def) -> Status {
    if (auto user = JobUserOf(def, daemon_uid); !user.ok()) return user.status();
    if (Status units = CheckUnitRequest(def.use, pools); !units.ok())
      return Status::Invalid("use", JobWhere(def, "use") + units.message());
    if (def.timezone.empty()) return Status::Ok();
    auto zone = LoadTimeZone(def.timezone);
    if (!zone.ok())
      return Status::Invalid("timezone", JobWhere(def, "timezone") + zone.status().message());
    return Status::Ok();
  };
  const JobSetLoad load = ResolveJobFiles(files, /*stored=*/{}, check, /*now=*/0);
  if (!load.errors.empty()) {
    std::string all;
    for (const JobLoadError& e : load.errors) all += (all.empty() ? "" : "\n") + e.message;
    return Status(ErrorCode::kConfig, "jobs", all);
  }
  return JobFilesChecked{static_cast<int>(files.size()), static_cast<int>(load.jobs.size())};
}

}  // namespace tq
