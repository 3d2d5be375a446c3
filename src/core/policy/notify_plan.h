// What the end of a task sets off (SPEC 7a): which of its hooks run, whether it is mailed, and
// the environment and message they get. Pure decisions; the daemon's Notifier acts on them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/task.h"

namespace tq {

/// The facts a hook or a mail tells of: a task's end, or a job that has not succeeded in time.
struct NotifyFacts {
  std::optional<TaskId> task;  ///< none for an overdue job that never ran
  std::string job;             ///< "" for a task of no job
  std::string state;           ///< succeeded, failed, cancelled, or overdue
  std::string reason;          ///< the task's reason (exit, timeout, ...) or why it is overdue
  int exit_code = -1;          ///< -1 unless the last attempt exited
  int attempt = 0;             ///< attempts made
  std::string command;         ///< what the task runs (its current stage's), as `tq status` shows
  std::string stage;           ///< the stage it ended at, for a task with stages; "" otherwise
};

/// The facts of a terminal task.
NotifyFacts FactsOf(const Task& task);

/// A hook and its command.
struct HookCall {
  std::string name;  ///< on_failure, on_success or on_finish
  std::string command;
};

/// What an end sets off.
struct NotifyPlan {
  std::vector<HookCall> hooks;  ///< on_failure or on_success first, then on_finish
  bool mail = false;            ///< mail `mailto` (it is set and mail_on asks for this end)
};

/// What the end of `task` sets off. Succeeded runs on_success, failed on_failure (a task is
/// failed only after its last retry, so this is once), and every end on_finish; a cancelled
/// task runs only on_finish. Expired (the end of a success's retention) sets off nothing. Mail
/// goes on failure, on every end with mail_on = always, or with mail_on = output when the last
/// attempt `printed` anything (to stdout or stderr), whatever the end.
NotifyPlan PlanNotify(const Task& task, bool printed);

/// A hook's environment: `base` (the task's own) with TQ_TASK_ID, TQ_JOB, TQ_STATE, TQ_REASON,
/// TQ_EXIT_CODE ("" unless it exited), TQ_ATTEMPT, TQ_STAGE ("" without stages), TQ_OUTPUT
/// (`output_path`) and TQ_HOOK (`hook`) set over any given.
std::vector<std::string> HookEnvironment(const NotifyFacts& facts, std::string_view hook,
                                         std::vector<std::string> base,
                                         std::string_view output_path);

/// The message sendmail -t gets for `facts`: headers (To `mailto`, a Subject naming the task,
/// job, state and `host`, Auto-Submitted) and a body with the facts and `output`.
std::string MailMessage(const NotifyFacts& facts, std::string_view mailto, std::string_view host,
                        std::string_view output);

}  // namespace tq
