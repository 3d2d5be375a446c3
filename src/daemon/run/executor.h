// Runs attempts under their supervisors: starts the shim, watches it through a pidfd, signals
// it for cancel and timeout, and turns its status record into an outcome.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/model/clock.h"
#include "core/model/task.h"
#include "core/store/store.h"
#include "daemon/host/event_loop.h"
#include "daemon/run/runner.h"
#include "daemon/run/spare_records.h"
#include "daemon/run/spawner.h"
#include "daemon/run/task_cgroups.h"
#include "daemon/run/task_files.h"

namespace tq {

/// Supervises running attempts under tq-shim processes: tqd's Runner. An attempt is over (the
/// FinishedCallback runs) when its supervisor and the task's processes are gone; one whose
/// supervisor provably never started (no status record was ever written) is never_started.
class Executor : public Runner {
 public:
  /// Reads output_max and kill_grace through `config` (the daemon's pointer, which must outlive
  /// the executor) when it needs them. Tasks start with the soft descriptor limit
  /// `task_fd_limit` (0: the daemon's own), each in a cgroup of its own under `cgroups` (which
  /// must outlive the executor; nullptr: none).
  Executor(EventLoop& loop, const Clock& clock, Spawner& spawner, TaskFiles files,
           const ConfigPtr& config, size_t task_fd_limit, const TaskCgroups* cgroups,
           Callbacks callbacks);
  ~Executor() override;

  /// Starts the supervisor for `launch` with its status file already created and locked, so the
  /// lock marks it alive from its first instant; returns the shim's pid, or why it could not
  /// start.
  Result<int> Start(const Launch& launch) override;
  /// Keeps the attempt's status record as a spare for a later attempt's (SpareRecords).
  void EndStored(TaskId id, int attempt) override;

  /// Takes over an attempt started by an earlier daemon: re-attaches to a live shim (waiting
  /// for one that is still writing its first record), collects a finished one (the callback
  /// runs later on the loop), or reports the attempt lost once its processes are gone. A stop
  /// already asked of it goes on.
  void Adopt(const RunningAttempt& attempt) override;

  /// Ends a running attempt: records the stop (StopCallback), then TERM to all its processes,
  /// KILL after the grace. `why` is kCancelled or kTimeout and becomes the attempt's reason;
  /// `task_reason` is the task's if it ends here. False if `id` is not running.
  bool Terminate(TaskId id, AttemptReason why, TaskReason task_reason,
                 const StopSignal& how) override;
  int RunningHere() const override { return static_cast<int>(running_.size()); }
  bool Runs(TaskId id, int attempt) const override {
    auto it = running_.find(id);
    return (it != running_.end() && it->second.attempt == attempt) ||
           reporting_.count({id, attempt}) != 0;
  }
  /// Sends TQ_SHIM_SIG_KILL to the attempt's shim when its status record is held by the very
  /// shim that ran it.
  void KillOrphan(TaskId id, int attempt) override;

 private:
  /// One supervised attempt.
  struct Running {
    TaskId id = 0;
    int attempt = 0;
    int shim_pid = 0;
    int pidfd = -1;  ///< -1 while an adopted shim has not yet written its first record
    bool our_child = false;
    bool keep_background = false;     ///< what the task leaves running is kept on purpose
    std::optional<StopRequest> stop;  ///< the stop asked of it, if any
    bool stop_signalled = false;      ///< the stop's first signal went out for `stop`
    StopSignal how;                   ///< how the stop is signalled (after a restart: TERM)
    int64_t timeout_ms = 0;           ///< the task's limit (0: none)
    WallMs started = 0;               ///< the attempt's wall-clock start
    EventLoop::TimerId timeout_timer = 0;
    EventLoop::TimerId kill_timer = 0;
    EventLoop::TimerId probe_timer = 0;  ///< re-reads the record of a shim still starting
    std::string program;                 ///< argv[0] and the working directory, to say why it
    std::string cwd;                     ///< could not start ("" for an adopted attempt)
  };

  /// What an adopted attempt's status file says about its shim.
  enum class Probe { kLive, kStarting, kGone };
  /// Re-attaches `r` (setting its pid and pidfd) if its shim is alive and provably the one that
  /// ran it; kStarting if the shim holds its lock but has not yet written its record.
  Probe TryAttach(Running& r);
  /// Settles an adopted attempt: watches a live shim (resuming a stop or its timeout), hands a
  /// gone one to the callback, or looks again shortly at one still starting.
  void Reconcile(TaskId id);
  /// Watches the pidfd of the attempt of `id` (already in running_) for the shim's exit.
  void Watch(TaskId id);
  /// Ends the attempt with reason timeout `after_ms` from now (monotonic).
  void ArmTimeout(Running& r, int64_t after_ms);
  /// True when the shim of `r` has exited, its exit not yet read.
  static bool ShimExited(const Running& r);
  /// KILLs the attempt when the grace of its stop runs out (measured from stop->at).
  void ArmKill(Running& r);
  void OnShimExit(TaskId id);
  /// Turns the record of `r` (whose shim is gone, already out of running_) into an outcome and
  /// reports it (deferred to the loop for an `adopted` attempt, which may also prove never
  /// started). A lost attempt whose task still runs is first ended: its process group is killed
  /// and it is reported once gone (SPEC 6). `shim_exit` is the shim's exit status when it was
  /// our child and exited (-1 otherwise): TQ_SHIM_EXIT_NO_SPACE proves it never started the task.
  void Conclude(TaskId id, Running r, bool adopted, int shim_exit = -1);
  /// Re-checks (and KILLs again) the process group `pid` (0: none) and, unless the task keeps
  /// its background processes, the cgroup of a lost attempt until both are gone, then reports
  /// `outcome`; the attempt counts as running meanwhile.
  void AwaitGone(TaskId id, int pid, unsigned long long start_time, AttemptOutcome outcome);
  void Signal(const Running& r, int sig) const;
  /// Sends the shim the stop of `r` as r.how says (its signal rides in the value of
  /// TQ_SHIM_SIG_TERMINATE, or TQ_SHIM_SIG_KILL), and arms the KILL after the grace.
  void SignalStop(Running& r);
  AttemptOutcome Collect(TaskId id, const Running& r) const;
  /// The shim's options for the cgroup of `launch` and the limits of it that can be enforced;
  /// warns once per setting about one that cannot.
  std::vector<std::string> CgroupArgs(const Launch& launch);
  /// Tries again, every kLingerRetryMs, to remove the cgroup of an ended attempt that processes
  /// still hold.
  void Linger(TaskId id, int attempt);

  EventLoop& loop_;
  const Clock& clock_;
  Spawner& spawner_;
  TaskFiles files_;
  SpareRecords spares_;  ///< status records to reuse
  const ConfigPtr& config_;
  size_t task_fd_limit_;
  const TaskCgroups* cgroups_;                  ///< where each attempt gets a cgroup; nullptr: none
  std::set<std::string> unenforced_;            ///< the cgroup settings already warned about
  std::set<std::pair<TaskId, int>> lingering_;  ///< ended attempts whose cgroup is still held
  EventLoop::TimerId linger_timer_ = 0;
  FinishedCallback on_finished_;
  StopCallback on_stop_;
  std::map<TaskId, Running> running_;
  /// Ended attempts whose end is told on the loop's next pass (an adopted one's): still its own.
  std::set<std::pair<TaskId, int>> reporting_;
  std::string boot_id_;  ///< this boot, to tell a shim of this boot from a pid reused since
  bool log_journal_;     ///< tqd logs to the journal: so do the shims (their stderr is tqd's)
};

}  // namespace tq
