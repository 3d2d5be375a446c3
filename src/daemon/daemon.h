// The daemon: makes its parts in order on one event loop (the store, the server, dispatch, the
// scheduler, hooks and mail), connects their callbacks, opens, runs and stops. What each part
// does lives in its folder; this is only the wiring.
#pragma once

#include <functional>

#include <memory>
#include <optional>
#include <string>

#include "core/config/config.h"
#include "core/config/config_diff.h"
#include "core/metrics/metrics.h"
#include "core/model/clock.h"
#include "core/store/store.h"
#include "daemon/cron/cron_host.h"
#include "daemon/cron/overdue_watch.h"
#include "daemon/cron/scheduler.h"
#include "daemon/handlers/request_context.h"
#include "daemon/host/event_loop.h"
#include "daemon/host/host_lease.h"
#include "daemon/host/metrics_textfile.h"
#include "daemon/host/service_manager.h"
#include "daemon/host/state_lock.h"
#include "daemon/host/store_wakeups.h"
#include "daemon/notify/hook_runner.h"
#include "daemon/notify/notifier.h"
#include "daemon/run/dispatch.h"
#include "daemon/run/spawner.h"
#include "daemon/run/task_cgroups.h"
#include "daemon/run/task_files.h"
#include "daemon/serve/event_feed.h"
#include "daemon/serve/group_commit.h"
#include "daemon/serve/held_requests.h"
#include "daemon/serve/server.h"
#include "daemon/serve/waiters.h"
#include "daemon/users/access_rules.h"
#include "daemon/users/lookup_holds.h"
#include "daemon/users/spool.h"
#include "daemon/users/user_limits_gate.h"

namespace tq {

/// Where the daemon lives and how it behaves.
struct DaemonOptions {
  std::string socket_path;
  unsigned socket_mode = 0600;  ///< 0666 in system mode: access is decided per request
  RunAs run_as;                 ///< system mode: each task as its owner, in a PAM session
  std::string state_dir;
  std::string shim_path;
  /// The job files (SPEC 7); "" reads none (tests without jobs).
  std::string jobs_dir;
  /// This boot of the machine, for @reboot jobs; "" reads the kernel's (ReadBootId). Tests set it.
  std::string boot_id;
  ConfigPtr config;  ///< tqd.toml in force: the one pointer everything reads it through
  /// Reads tqd.toml again, as at start (`tq reload`, SIGHUP); empty: there is none to read.
  std::function<Result<Config>()> read_config;
  ServerLimits server_limits;  ///< main sizes max_connections to the descriptor limit
  size_t task_fd_limit = 0;    ///< the soft descriptor limit tqd started with, for its tasks
  /// Makes what runs attempts, reporting to dispatch. Empty in tqd: the Executor over the shim
  /// at shim_path. Tests pass a fake that starts no process.
  Dispatcher::MakeRunner make_runner;
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

  // Its parts, for tests, once Open succeeded.
  Waiters& waiters() { return *waiters_; }
  Scheduler& scheduler() { return *scheduler_; }

  /// Reads tqd.toml again and puts in force what a running tqd can change; what changed and
  /// what needs a restart, or why the file could not be read (then nothing changes).
  Result<ConfigDiff> ReloadConfig();

  // CronHost: the daemon as the scheduler sees it.
  Store& store() override { return *store_; }
  const Clock& clock() const override { return clock_; }
  Access AccessFor(const Owner& peer) const override { return access_.For(peer); }
  Status CheckQueue(const Owner& peer, const std::string& queue) const override {
    return access_.CheckQueue(peer, queue);
  }
  Status CheckUnits(const UnitRequest& use) const override {
    return CheckUnitRequest(use, options_.config->unit_pools);
  }
  const Spool& spool() const override { return spool_; }
  DaemonCounters& counters() override { return counters_; }
  Status AdmitSubmits(const Owner& peer, int64_t count) override {
    return submits_->Admit(peer, count);
  }
  RetryPolicy RetryPolicyFor(const std::string& queue,
                             const RetryOverrides& overrides) const override {
    return options_.config->RetryFor(queue, overrides);
  }
  EventFeed& events() override { return *events_; }
  bool EndPending(TaskId id, TaskState state, TaskReason reason) override {
    return dispatch_->EndPending({id}, state, reason);
  }
  void StopRunning(TaskId id, TaskReason reason) override { dispatch_->StopRunning(id, reason); }
  void ScheduleDispatch() override { dispatch_->Schedule(); }
  void JobsChanged() override;

 private:
  /// Makes the state directory and its private files, and takes its lock.
  Status PrepareState();
  /// Makes what runs attempts: the test's fake, or the Executor over the shim (with the tasks'
  /// cgroups, hooks and mail).
  Result<Dispatcher::MakeRunner> PrepareRunner();
  void OnFrame(ConnId conn, const Owner& peer, const std::string& payload);
  void OnSignal();
  /// Tells the waiters, the followers of events, the tasks' hooks and mail, and the other hosts
  /// of a shared store that `ids` reached a terminal state. Those of `read` (as they ended) are
  /// not read again.
  void NotifyTerminal(const std::vector<TaskId>& ids, const std::vector<Task>& read = {});
  /// Tells group `group`'s hooks and mail of its end once every shard has ended (SPEC 12).
  void GroupMayHaveEnded(TaskId group);
  /// The store's counts now with the counters and the history: `tq stats` and
  /// metrics_textfile.
  Result<MetricsSnapshot> Metrics();
  /// Adds the totals now to the history, and does so again in a minute.
  void SampleHistory();
  /// With a shared store, keeps this host's lease as `host`, ends the attempts it rescues from
  /// silent hosts, and kills what it runs and joins again when another host fenced it.
  void KeepLease(const std::string& host);
  /// With a shared store, every second (the fallback of the wake-ups): Look, and takes the jobs'
  /// enable and disable made through other hosts.
  void PollSharedStore();
  /// With a shared store, when another host changed it: runs a turn of dispatch (the other hosts'
  /// submits and ends are seen there), stops what other hosts asked to stop, and answers the
  /// waiters of tasks another host ended.
  void Look();
  /// Removes this host's files of tasks the store no longer holds (another host purged or
  /// cleaned them), now and every ten minutes.
  void RemoveFilesOfGoneTasks();
  /// KILLs what still runs here of the attempts this host started that passed to another host
  /// (SPEC 12): after a fence, and at start with a shared store.
  void KillPassedOn();

  DaemonOptions options_;
  const Clock& clock_;
  TaskFiles files_;
  EventLoop loop_;
  StateLock lock_;
  AccessRules access_;        ///< who may see and do what
  UserLimitsGate limits_;     ///< [user_limits] and [users.NAME]
  LookupHolds lookup_holds_;  ///< owners whose account lookup failed: their tasks wait
  Spool spool_;               ///< STATE/crontabs: the users' own job files
  DaemonCounters counters_;
  MinuteHistory history_;  ///< the last hour of counters_, for the console's charts
  WallMs started_ = 0;
  std::string host_;  ///< the name this tqd joined the store as
  std::unique_ptr<Store> store_;
  std::unique_ptr<ShimSpawner> spawner_;
  std::optional<TaskCgroups> cgroups_;  ///< where tasks get a cgroup each; none: no cgroups
  std::unique_ptr<Server> server_;
  std::unique_ptr<HeldRequests> held_;  ///< requests that came while the store was waited for
  std::unique_ptr<Waiters> waiters_;
  std::unique_ptr<EventFeed> events_;     ///< tq events -f
  std::unique_ptr<GroupCommit> submits_;  ///< this turn's submits
  std::unique_ptr<Dispatcher> dispatch_;
  std::unique_ptr<Scheduler> scheduler_;  ///< after dispatch: it counts the re-attached runs
  /// Hooks and mail (SPEC 7a); none when a test's fake runner starts no process.
  std::unique_ptr<HookRunner> hooks_;
  std::unique_ptr<Notifier> notifier_;
  std::unique_ptr<OverdueWatch> overdue_;      ///< the jobs' dead man's switches, with notifier_
  std::unique_ptr<RequestContext> requests_;   ///< what the handlers see, once all is open
  std::unique_ptr<MetricsTextfile> textfile_;  ///< with metrics_textfile in tqd.toml
  std::unique_ptr<HostLease> lease_;           ///< with a shared store (PostgreSQL)
  std::unique_ptr<StoreWakeups> wakeups_;      ///< with a shared store (PostgreSQL)
  ServiceManager service_;  ///< READY, STATUS, RELOADING, STOPPING and WATCHDOG to systemd
  int signal_fd_ = -1;
};

}  // namespace tq
