// The seam between the daemon's decisions and running attempts: the daemon starts and stops
// attempts through a Runner and hears of their ends through its callbacks. tqd's Runner is
// the Executor (shim processes); tests use a fake that starts nothing (tests/support).
#pragma once

#include <csignal>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/model/account.h"
#include "core/model/resources.h"
#include "core/model/status.h"
#include "core/model/task.h"
#include "core/store/store.h"

namespace tq {

/// Why an attempt never started for want of space where tqd keeps its files (a full disk): the
/// task is pending again without using a retry, and waits a growing pause (SPEC 6).
inline constexpr char kNoSpaceDetail[] = "the state directory's disk is full";

/// How a stop reaches a running task's processes: `signal` first and KILL after kill_grace, or
/// with `kill_now` KILL at once.
struct StopSignal {
  int signal = SIGTERM;
  bool kill_now = false;
};

/// Everything needed to start one attempt.
struct Launch {
  TaskId id = 0;
  int attempt = 0;
  std::vector<std::string> argv;  ///< the final argv (already /bin/sh -c for shell tasks)
  std::vector<std::string> env;   ///< the task's full environment
  std::string cwd;
  std::string cwd_fallback;  ///< entered when cwd cannot be (a job's missing home); "": none
  bool has_stdin = false;    ///< the payload was written to TaskFiles::Stdin
  int64_t timeout_ms = 0;
  bool keep_background = false;    ///< leave descendants running when the main process ends
  std::optional<Account> account;  ///< whom it runs as; none: the daemon's own user
  std::string pam_service;         ///< with an account: the PAM session to open for it; "": none
  std::string pam_dir;             ///< where that service's configuration is; "": /etc/pam.d
  Resources resources;             ///< nice, ionice and limits: its queue's, its job's over them
};

/// Runs attempts for the daemon, as ninja's CommandRunner runs commands. Lives on the event
/// loop's thread.
class Runner {
 public:
  /// Called once per attempt when it is over, with its outcome and the stop asked of it, if any.
  /// An attempt that provably never started comes with outcome.never_started.
  using FinishedCallback = std::function<void(TaskId, int attempt, const AttemptOutcome&,
                                              const std::optional<StopRequest>& stop)>;
  /// Called when a stop is first asked of an attempt, before anything acts on it: it must make
  /// the request durable, so a restarted daemon knows why the attempt ended.
  using StopCallback = std::function<void(TaskId, int attempt, const StopRequest&)>;
  /// What a Runner reports to.
  struct Callbacks {
    FinishedCallback on_finished;
    StopCallback on_stop;
  };

  virtual ~Runner() = default;
  /// Starts `launch`; returns the supervisor's pid, or why it could not start.
  virtual Result<int> Start(const Launch& launch) = 0;
  /// Told once an attempt's end is stored: what it kept for a restarted daemon may go.
  virtual void EndStored(TaskId id, int attempt) = 0;
  /// Takes over an attempt started by an earlier daemon.
  virtual void Adopt(const RunningAttempt& attempt) = 0;
  /// Ends a running attempt as `how` says; `why` (kCancelled or kTimeout) becomes the attempt's
  /// reason and `task_reason` the task's if it ends here (the first stop asked wins; a later
  /// `kill_now` still KILLs at once). False if `id` is not running.
  virtual bool Terminate(TaskId id, AttemptReason why, TaskReason task_reason,
                         const StopSignal& how) = 0;
  /// How many attempts it runs now: what runs on this host.
  virtual int RunningHere() const = 0;
  /// True while it runs attempt `attempt` of `id` (also one still starting, one adopted and
  /// being looked at, or one ended whose end is yet to be told): one the store holds as running
  /// here that it does not run never started.
  virtual bool Runs(TaskId id, int attempt) const = 0;
  /// KILLs what still runs of attempt `attempt` of `id`, one this host started that passed to
  /// another host (SPEC 12), if its supervisor still runs here; tells nothing of its end.
  virtual void KillOrphan(TaskId id, int attempt) = 0;
};

}  // namespace tq
