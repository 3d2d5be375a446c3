// Which jobs are in force after the job files are read (SPEC 7 "Reload"): each file's new text
// when it is good, else its last good text, with job names unique across files. A pure decision
// the scheduler makes at start and at each reload.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/jobs/job.h"
#include "core/jobs/job_status.h"
#include "core/model/status.h"
#include "core/store/store.h"
#include "daemon/cron/job_dir.h"

namespace tq {

/// A job in force and where its definition comes from.
struct LoadedJob {
  JobDef def;
  bool from_last_good = false;  ///< its file failed: this is the file's last good definition
};

/// What loading the job files decided.
struct JobSetLoad {
  std::vector<LoadedJob> jobs;         ///< by file (name order), then in file order
  std::vector<JobLoadError> errors;    ///< every error of each file that failed (bounded)
  std::vector<StoredJobFile> to_save;  ///< good files whose text is not the stored one
  std::vector<std::string> to_forget;  ///< stored files that are gone
};

/// Checks a job beyond what its file alone can say (its user, in this daemon); a refusal's
/// message starts with "<file>:<line>: ".
using JobCheck = std::function<Status(const JobDef&)>;

/// Decides the jobs in force from `files` (ReadJobDir's, in name order) and `stored` (the last
/// good text of each file). A file that was read, parses, whose every job passes `check` and
/// defines no name an earlier file holds is good: its jobs are in force and its text is saved
/// (saved = `now`) when it differs from the stored one. A file that fails has its errors
/// reported (up to kMaxFileErrors each), and the jobs of its stored last good text stay in force
/// (from_last_good), except those that no longer pass `check` or whose name an earlier file holds.
/// Stored files missing from `files` are forgotten.
JobSetLoad ResolveJobFiles(const std::vector<JobFileRead>& files,
                           const std::vector<StoredJobFile>& stored, const JobCheck& check,
                           WallMs now);

/// Whether two definitions make the same firings and tasks: every field but where the job is
/// written (file, line).
bool SameDefinition(const JobDef& a, const JobDef& b);

}  // namespace tq
