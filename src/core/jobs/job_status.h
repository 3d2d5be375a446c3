// What `tq jobs` shows of a job and what a reload reports: the definition in force, its run-time
// record and the load errors of the job files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/jobs/job.h"
#include "core/model/clock.h"
#include "core/model/task.h"

namespace tq {

/// A job file that failed to load: its last good definitions stay in force.
struct JobLoadError {
  std::string file;
  int line = 0;         ///< 0 when the error has no line (unreadable file)
  std::string message;  ///< "<file>:<line>: <key>: <reason>"
  bool kept = false;    ///< the file loaded before: its last good jobs stay in force
};

/// One job as the scheduler holds it.
struct JobInfo {
  JobDef def;
  uint32_t owner_uid = 0;       ///< whom its runs belong to (its `user`, else the daemon's)
  bool disabled = false;        ///< `tq jobs disable` (persisted); def.enabled is the file's
  bool from_last_good = false;  ///< its file failed to load: this is the last good definition
  std::optional<WallMs> next;   ///< the next firing; none when disabled, @reboot or never
  /// The scheduled time of its latest firing that made a run (a skipped, disabled-over or
  /// refused time is not shown), while the store keeps that task.
  std::optional<WallMs> last_fired;
  std::optional<TaskId> last_task;  ///< the task of its latest run, while the store keeps it
  std::optional<TaskState> last_state;
  TaskReason last_reason = TaskReason::kNone;
  int last_exit_code = -1;
  bool overdue = false;  ///< its dead man's switch has fired: no success within its window
};

/// What loading the job files did.
struct ReloadReport {
  int files = 0;       ///< job files read: the job directory's and the users' own
  int jobs = 0;        ///< jobs in force
  int user_files = 0;  ///< of `files`, the users' own (`tq jobs install`)
  int user_jobs = 0;   ///< of `jobs`, those of the users' own files
  int added = 0;
  int removed = 0;
  int changed = 0;
  std::vector<JobLoadError> errors;  ///< one per file that failed
};

}  // namespace tq
