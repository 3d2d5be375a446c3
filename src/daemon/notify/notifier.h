// Tells of task ends and overdue jobs (SPEC 7a): turns what notify_plan.h decides into hooks and
// mail, and hands them to the HookRunner to run as the task's user.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/jobs/job.h"
#include "core/model/task.h"
#include "core/policy/notify_plan.h"
#include "daemon/host/log_throttle.h"
#include "daemon/notify/hook_runner.h"
#include "daemon/run/task_files.h"

namespace tq {

/// Builds each notification of an end: its command, environment, input and user.
class Notifier {
 public:
  /// Gives a task's nice, ionice and rlimits, as its attempts get them.
  using ResourcesOf = std::function<Resources(const Task&)>;
  /// Tells whether a task's owner is an admin (root, the daemon's user, admin_group).
  using IsAdmin = std::function<bool(const Owner&)>;

  /// With `run_as_owner` (the system daemon) hooks run as the task's owner, in the PAM session
  /// `pam_service` ("" none) configured in `pam_dir`; otherwise as the daemon's user. Each runs
  /// with what `resources_of` gives its task; an admin's (`is_admin`) may take the hook slot kept
  /// for admins.
  Notifier(HookRunner& hooks, const Clock& clock, TaskFiles files, const ConfigPtr& config,
           bool run_as_owner, std::string pam_service, std::string pam_dir,
           ResourcesOf resources_of, IsAdmin is_admin);

  /// Runs the hooks and sends the mail that the end of `task` (terminal) asks for.
  void TaskEnded(const Task& task);

  /// Runs the hooks and sends the mail that the end of group `group` (SPEC 12) asks for, once
  /// every one of its `shards` has ended: as for one task in the group's state (GroupState), told
  /// with TQ_TASK_ID set to the group's id and the output of the shard that decided it (the first
  /// that failed, else the first cancelled, else the last).
  void GroupEnded(TaskId group, const std::vector<Task>& shards);

  /// The dead man's switch of `job`: its on_failure hook and its mail (when `mailto` is set,
  /// whatever mail_on says), with TQ_STATE=overdue and `reason`. `run` is what
  /// a run of the job would be (its owner and spec), for the user, environment and directory.
  void JobOverdue(const JobDef& job, const Task& run, const std::string& reason);

 private:
  /// Runs the hooks and sends the mail that the end of `task` asks for, telling `facts`.
  void Tell(const Task& task, const NotifyFacts& facts);
  /// Runs the plan's hooks and mail for `facts` of `task`, whose output is `output`.
  void Send(const Task& task, const NotifyFacts& facts, const NotifyPlan& plan,
            const std::string& output);
  /// The last attempt's stdout then stderr, the tail of each at most kOutputTail bytes.
  std::string OutputOf(const Task& task) const;

  HookRunner& hooks_;
  TaskFiles files_;
  const ConfigPtr& config_;
  bool run_as_owner_;
  std::string pam_service_;
  std::string pam_dir_;
  ResourcesOf resources_of_;
  IsAdmin is_admin_;
  std::string host_;         ///< this machine's name, for the mail's subject
  LogThrottle no_sendmail_;  ///< a missing sendmail is said once a minute, not at every end
};

}  // namespace tq
