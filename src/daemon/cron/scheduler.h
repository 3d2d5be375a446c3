// The cron scheduler (SPEC 7): holds the jobs in force, fires each at its time from one
// wall-clock timer armed for the earliest deadline, applies the misfire and overlap policies, and
// reloads the job files keeping the last good definitions of a file that breaks.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/jobs/job_status.h"
#include "core/jobs/overlap.h"
#include "core/model/status.h"

namespace tq {

class CronHost;
class EventLoop;

/// What `tq jobs run` did.
struct JobRunOutcome {
  OverlapAction action = OverlapAction::kCreate;  ///< kSkip / kCoalesce: nothing was created
  std::optional<TaskId> task;                     ///< the run's task, when one was created
};

/// One daemon's scheduler. Lives on the daemon's event loop; every method runs on it.
class Scheduler {
 public:
  /// `jobs_dir` holds the job files (`*.toml`); a missing directory means no jobs, and "" (tests
  /// that have none) reads nothing at all. `boot_id` names this boot of the machine (ReadBootId):
  /// an @reboot job runs once per boot id.
  Scheduler(CronHost& daemon, EventLoop& loop, std::string jobs_dir, std::string boot_id);
  ~Scheduler();

  /// Loads the job files (the last good text of a file that fails), fires @reboot jobs not yet
  /// fired in this boot and the missed firings the misfire policies run, and arms the timer.
  ReloadReport Start();
  /// Re-reads the job files (SIGHUP, `tq reload`). Removed jobs stop firing; their running
  /// tasks are left alone.
  ReloadReport Reload();
  /// Re-reads only `user`'s own job file (`tq jobs install` and `remove`): the other files'
  /// jobs stay as they are.
  ReloadReport ReloadUser(const std::string& user);
  /// The wall clock was stepped: plans every job again from the new time (misfire policies).
  void OnClockSet();

  /// Every job in force, in name order.
  std::vector<JobInfo> Jobs();
  /// One job, or kNotFound naming it.
  Result<JobInfo> Job(const std::string& name);
  /// The definition of job `name` in force; nullptr when there is none.
  const JobDef* Definition(const std::string& name) const;
  /// What a run of each job with a dead man's switch (expect_success_within) would be, its owner
  /// and spec (never stored), for the switch's alert; disabled jobs are left out.
  std::vector<Task> SwitchedJobs() const;
  /// The load errors of the last load.
  const std::vector<JobLoadError>& Errors() const;
  /// `tq jobs run NAME`: a run now, obeying the job's overlap unless `force`.
  Result<JobRunOutcome> RunNow(const std::string& name, bool force);
  /// Whether `text` would load as `user`'s own job file, with every check a reload makes: the
  /// names of its jobs, or the first refusal "<file>:<line>: ..." (kConfig).
  Result<std::vector<std::string>> CheckUserFile(const std::string& user, const std::string& text,
                                                 const std::string& name);
  /// `tq jobs enable|disable NAME`: persisted; a disabled job does not fire.
  Status SetEnabled(const std::string& name, bool enabled);
  /// In a store other hosts share: takes the enable and disable given through another host
  /// (the store refuses a run of a disabled job meanwhile, whichever host fires it).
  void FollowStore();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tq
