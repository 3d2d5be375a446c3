// The daemon: wires the store, the server, the executor and the chooser together on one event
// loop, and owns the rules that connect them (who sees what, when the chooser runs).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "core/config/config.h"
#include "core/metrics/metrics.h"
#include "core/model/clock.h"
#include "core/policy/access.h"
#include "core/policy/chooser.h"
#include "core/proto/protocol.h"
#include "core/store/store.h"
#include "daemon/cron/cron_host.h"
#include "daemon/cron/overdue_watch.h"
#include "daemon/cron/scheduler.h"
#include "daemon/host/event_loop.h"
#include "daemon/host/metrics_textfile.h"
#include "daemon/host/service_manager.h"
#include "daemon/host/state_lock.h"
#include "daemon/notify/hook_runner.h"
#include "daemon/notify/notifier.h"
#include "daemon/run/executor.h"
#include "daemon/run/runner.h"
#include "daemon/run/spawner.h"
#include "daemon/run/task_cgroups.h"
#include "daemon/run/task_files.h"
#include "daemon/run/unstored_ends.h"
#include "daemon/run/watcher.h"
#include "daemon/serve/event_feed.h"
#include "daemon/serve/server.h"
#include "daemon/serve/waiters.h"
#include "daemon/users/accounts.h"
#include "daemon/users/group_members.h"
#include "daemon/users/lookup_holds.h"
#include "daemon/users/spool.h"
#include "daemon/users/user_limits_gate.h"

namespace tq {

/// Where the daemon lives and how it behaves.
struct DaemonOptions {
  std::string socket_path;
  unsigned socket_mode = 0600;  ///< 0666 in system mode: access is decided per request
  /// System mode: each task runs as its owner's account, looked up at its start (SPEC 8).
  bool run_as_owner = false;
  /// With run_as_owner: the PAM service whose session each task gets ("": none), and the
  /// directory of its configuration ("": /etc/pam.d).
  std::string pam_service;
  std::string pam_dir;
  std::string state_dir;
  std::string shim_path;
  /// The job files (SPEC 7); "" reads none (tests without jobs).
  std::string jobs_dir;
  /// This boot of the machine, for @reboot jobs; "" reads the kernel's (ReadBootId). Tests set it.
  std::string boot_id;
  ConfigPtr config;  ///< tqd.toml as read at start: the one pointer everything reads it through
  ServerLimits server_limits;  ///< main sizes max_connections to the descriptor limit
  size_t task_fd_limit = 0;    ///< the soft descriptor limit tqd started with, for its tasks
  /// Makes what runs attempts, reporting to the daemon's callbacks. Empty in tqd: the Executor
  /// over the shim at shim_path. Tests pass a fake that starts no process.
  std::function<std::unique_ptr<Runner>(Runner::Callbacks)> make_runner;
};

/// One tqd. Construct, Start, then Run until a stop signal.
class Daemon final : public CronHost {
 public:
  Daemon(DaemonOptions options, const Clock& clock);
  ~Daemon();

  /// Takes the state lock, opens the store and the runner (the shim), re-attaches to running
  /// attempts and starts the scheduler (loads the jobs, fires what is due): everything but
  /// signals and the socket. Any failure names what and why; bad job files are no failure (they
  /// are the scheduler's load errors).
  Status Open();
  /// Opens, then takes the stop signals and starts listening.
  Status Start();
  /// Serves until SIGTERM or SIGINT; running tasks are left to their supervisors.
  void Run();
  /// Handles what is ready or due now, without waiting: how tests drive an opened daemon.
  void RunReady() { loop_.RunReady(); }

  // For the request handlers.
  Store& store() override { return *store_; }
  const Clock& clock() const override { return clock_; }
  Server& server() { return *server_; }
  Waiters& waiters() { return *waiters_; }
  /// The followers of `tq events -f` and what they are sent.
  EventFeed& events() override { return *events_; }
  /// The cron scheduler (SPEC 7), once Open succeeded.
  Scheduler& scheduler() { return *scheduler_; }
  const TaskFiles& files() const { return files_; }
  /// The current configuration snapshot; read it at each use, never keep the reference.
  const Config& config() const { return *options_.config; }

  /// The task if `peer` may see it (AccessFor(peer).Sees); otherwise kNotFound, so ids of other
  /// users cannot be probed.
  Result<Task> GetVisible(const Owner& peer, TaskId id);
  /// As GetVisible, without the task's stdin and environment (Store::GetSummary).
  Result<Task> GetVisibleSummary(const Owner& peer, TaskId id);
  /// What `peer` may see and do (AccessOf, with the user the daemon runs as).
  Access AccessFor(const Owner& peer) const override;
  /// Whether `peer` may put tasks in `queue` (CheckQueueUse over the queue's allow_users and
  /// allow_groups); kPermission naming the queue when not.
  Status CheckQueue(const Owner& peer, const std::string& queue) const override;
  /// The users' own job files (`tq jobs install`).
  const Spool& spool() const override { return spool_; }
  /// Refuses `count` new tasks of `peer` that their limits forbid, counting the submits of
  /// theirs in this turn's group too (UserLimitsGate::Admit).
  Status AdmitSubmits(const Owner& peer, int64_t count) override;
  /// Refuses a change of `peer`'s own job file past its rate (UserLimitsGate::AdmitJobFileChange).
  Status AdmitJobFileChange(const Owner& peer) { return limits_.AdmitJobFileChange(peer); }
  /// Runs the chooser once the current batch of events is handled, and re-arms the timers of
  /// delayed tasks and of the watcher.
  void ScheduleDispatch() override;
  /// Ends a pending task with `state`/`reason` (its dependents fail) and tells the waiters;
  /// false when the store could not take it (the waiters are told the error).
  bool EndPending(TaskId id, TaskState state, TaskReason reason) override;
  /// Stops a running task; when it has ended it is cancelled with `reason` (cancelled or
  /// superseded).
  void StopRunning(TaskId id, TaskReason reason) override;
  /// Tells the waiters, the followers of events and the task's hooks and mail that `ids`
  /// reached a terminal state.
  void NotifyTerminal(const std::vector<TaskId>& ids);
  /// The jobs in force changed (a reload, an enable or disable): their dead man's switches are
  /// checked again.
  void JobsChanged() override;
  /// The retry policy a task submitted to `queue` gets: the queue's defaults with `overrides`.
  RetryPolicy RetryPolicyFor(const std::string& queue,
                             const RetryOverrides& overrides) const override;
  /// Adds a submit to the group committed once this turn of the loop has read its requests:
  /// concurrent submitters share one transaction and one sync, and each is answered after it.
  void QueueSubmit(ConnId conn, const Owner& peer, TaskSpec spec, bool supersede_running);
  /// Every queue `peer` may see with its effective settings, for `tq queue list`: an admin sees
  /// every queue that exists, a user those of tqd.toml open to them and the others where they
  /// have a pending or running task.
  nlohmann::json QueuesJson(const Owner& peer);
  /// What tqd counts since its start, for the parts that count (handlers, the scheduler).
  DaemonCounters& counters() override { return counters_; }
  /// The store's counts now with the counters: `tq stats` and metrics_textfile
  /// (daemon_metrics.cc).
  Result<MetricsSnapshot> Metrics();

 private:
  // `task` (read for `id`) when `peer` may see it, else kNotFound naming the id.
  Result<Task> Visible(const Owner& peer, TaskId id, Result<Task> task);
  void OnFrame(ConnId conn, const Owner& peer, const std::string& payload);
  void OnSignal();
  void Dispatch();
  bool StartTask(TaskId id);
  /// The nice, ionice and limits of `task`: its queue's, with its job's own over them.
  Resources ResourcesOf(const Task& task) const;
  void OnAttemptFinished(TaskId id, int attempt, const AttemptOutcome& outcome,
                         const std::optional<StopRequest>& stop);
  /// Undoes an attempt whose supervisor never started (the task is pending again), or ends it as
  /// OnAttemptFinished does when it was asked to stop or the store cannot undo it.
  void ReturnToPending(TaskId id, int attempt, AttemptOutcome outcome,
                       const std::optional<StopRequest>& stop);
  /// Stores an attempt's end (a retry or the task's end) and tells the waiters; a store fault
  /// comes back so the end can be kept and stored later.
  Status StoreEnd(AttemptEnd& end);
  void FlushSubmits();
  void ArmTimers();
  void RemoveTaskFiles(const std::vector<TaskId>& ids);
  int QueueCap(const QueueState& queue) const;
  /// What systemd's status shows: running attempts and pending tasks; nullopt on a store fault.
  std::optional<std::string> ServiceStatus();

  DaemonOptions options_;
  const Clock& clock_;
  TaskFiles files_;
  EventLoop loop_;
  StateLock lock_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<ShimSpawner> spawner_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Waiters> waiters_;
  std::unique_ptr<EventFeed> events_;   ///< tq events -f
  std::optional<TaskCgroups> cgroups_;  ///< where tasks get a cgroup each; none: no cgroups
  std::unique_ptr<Runner> executor_;    ///< the Executor, or a test's fake
  std::unique_ptr<UnstoredEnds> unstored_ends_;
  std::unique_ptr<Watcher> watcher_;
  std::unique_ptr<Scheduler> scheduler_;  ///< after the store and the runner it uses
  /// Hooks and mail (SPEC 7a); none when a test's fake runner starts no process.
  std::unique_ptr<HookRunner> hooks_;
  std::unique_ptr<Notifier> notifier_;
  std::unique_ptr<OverdueWatch> overdue_;  ///< the jobs' dead man's switches, with notifier_
  std::vector<std::pair<ConnId, SubmitItem>> pending_submits_;  ///< this turn's group
  std::mt19937_64 rng_;
  ServedLog served_;  ///< when each owner last had a task started: the chooser's fairness
  mutable GroupMembers admin_members_;  ///< who is in admin_group; a cache, so AccessFor is const
  UserLimitsGate limits_;               ///< [user_limits] and [users.NAME]
  LookupHolds lookup_holds_;            ///< owners whose account lookup failed: their tasks wait
  Spool spool_;                         ///< STATE/crontabs: the users' own job files
  DaemonCounters counters_;
  WallMs started_ = 0;
  std::unique_ptr<MetricsTextfile> textfile_;  ///< with metrics_textfile in tqd.toml
  ServiceManager service_;  ///< READY, STATUS, RELOADING, STOPPING and WATCHDOG to systemd
  int signal_fd_ = -1;
  EventLoop::TimerId due_timer_ = 0;
  EventLoop::TimerId watcher_timer_ = 0;
};

}  // namespace tq
