// Dispatch: which task runs next and how an attempt's end moves it on. The chooser picks over
// the store's ready tasks in the queues with a free slot; a pick becomes an attempt under the
// Runner; an attempt's end becomes a retry or the task's end in the store. A turn stores every
// end and start since the last one in one transaction and one sync. Delayed tasks and the
// watcher's work are woken by wall-clock timers.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/config/config.h"
#include "core/jobs/job.h"
#include "core/metrics/metrics.h"
#include "core/model/clock.h"
#include "core/model/resources.h"
#include "core/model/status.h"
#include "core/model/task.h"
#include "core/policy/chooser.h"
#include "core/policy/task_env.h"
#include "core/policy/unit_grant.h"
#include "core/store/store.h"
#include "daemon/host/background_work.h"
#include "daemon/host/event_loop.h"
#include "daemon/host/store_faults.h"
#include "daemon/run/runner.h"
#include "daemon/run/task_files.h"
#include "daemon/run/unstored_ends.h"
#include "daemon/run/watcher.h"
#include "daemon/users/access_rules.h"
#include "daemon/users/lookup_holds.h"
#include "daemon/users/user_limits_gate.h"

namespace tq {

/// Whom each task runs as.
struct RunAs {
  /// System mode: each task runs as its owner's account, looked up at its start (SPEC 8).
  bool owner = false;
  /// With owner: the PAM service whose session each task gets ("": none), and the directory of
  /// its configuration ("": /etc/pam.d).
  std::string pam_service;
  std::string pam_dir;
};

/// The parts of the daemon dispatch works with; each must outlive the Dispatcher.
struct DispatchParts {
  EventLoop& loop;
  const Clock& clock;
  Store& store;
  const ConfigPtr& config;  ///< the daemon's pointer, read at each use
  const TaskFiles& files;
  const AccessRules& access;  ///< a queue closed to a task's owner lends it nothing
  UserLimitsGate& limits;     ///< max_running and output_bytes per user
  LookupHolds& holds;         ///< owners whose account lookup failed: passed over for a while
  DaemonCounters& counters;   ///< picks, queue wait and run time
  RunAs run_as;
  std::string host;  ///< the name this tqd joined the store as: the tasks placed on it are its
};

/// What dispatch tells the parts above it, and the one thing it asks of them.
struct DispatchEvents {
  std::function<void(const Task& task, int attempt)> started;
  /// An attempt failed and the task waits for its retry.
  std::function<void(const Task& task, int attempt, const AttemptOutcome& outcome)> retrying;
  /// A stage before the last succeeded and the task waits for its next stage (SPEC 13); `task`
  /// as read before, at the stage that succeeded.
  std::function<void(const Task& task, int attempt, const AttemptOutcome& outcome)> advanced;
  /// An attempt whose supervisor never started was undone: the task is pending again.
  std::function<void(TaskId id)> unstarted;
  /// Tasks reached a terminal state; `read`: some of them as they ended, known without reading
  /// them again (the others are read by whoever needs them).
  std::function<void(const std::vector<TaskId>& ids, const std::vector<Task>& read)> ended;
  /// A task could not be ended (or read once ended): whoever waits for it hears why.
  std::function<void(TaskId id, const Status& why)> end_failed;
  /// Each turn of dispatch, before it picks (systemd's status line follows the counts).
  std::function<void()> turn;
  /// The definition of job `name` for its tasks' cwd and resources; nullptr when none.
  std::function<const JobDef*(const std::string& name)> job;
  /// A turn stored what other hosts of a shared store act on (submits, ends), or a stop of a
  /// task another host runs was stored: they are told at once (StoreWakeups).
  std::function<void()> shared;
};

/// Picks and starts tasks, stores their attempts' ends, and runs the watcher when due.
class Dispatcher {
 public:
  /// Makes what runs attempts, reporting to the dispatcher's callbacks.
  using MakeRunner = std::function<std::unique_ptr<Runner>(Runner::Callbacks)>;

  Dispatcher(DispatchParts parts, DispatchEvents events, const MakeRunner& make_runner);
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  /// What runs the attempts: the Executor under the shim, or a test's fake.
  Runner& runner() { return *runner_; }
  /// Runs a turn once the current batch of events is handled: stores the attempts' ends, runs
  /// the chooser, and re-arms the timers of delayed tasks and of the watcher.
  void Schedule();
  /// Runs `in_turn` inside the next turn's transaction, before its ends are stored and its tasks
  /// picked, and tells `after` whether the turn committed, before the turn's news and starts: the
  /// submits of a loop turn share the transaction and the sync that start them.
  void JoinNextTurn(std::function<void()> in_turn, std::function<void(const Status&)> after);
  /// Ends pending tasks `ids` with `state`/`reason` (their dependents fail), up to a thousand
  /// to a transaction, and tells of them once they are stored (inside WriteTogether, once it
  /// commits); a task no longer pending is left as it is. False when
  /// the store could not take a batch (end_failed is told the error for each of its tasks).
  bool EndPending(const std::vector<TaskId>& ids, TaskState state, TaskReason reason);
  /// Stops a running task as `how` says; when it has ended it is cancelled with `reason`
  /// (cancelled or superseded). With a shared store, a task running on another host is asked
  /// to stop through the store, and stops at that host's next poll (TERM, KILL after the grace).
  /// Inside WriteTogether it acts once that commits, never if it rolls back.
  void StopRunning(TaskId id, TaskReason reason, const StopSignal& how = StopSignal{});
  /// With a shared store, at each poll: stops the attempts this host runs that another host
  /// asked to stop, and ends as never started (pending again, no retry used) those the store
  /// holds as running here that this host neither runs nor has an end of: claims whose commit's
  /// answer never came although the server kept them (SPEC 6).
  void CheckRunning();
  /// Ends as lost the running `attempts` that passed to this host when it fenced silent host
  /// `host` (SPEC 12): each is retried or ended by its policy, as one whose supervisor vanished.
  /// Each ends when `host` was last heard of, `silent_ms` ago (now when 0): how long it ran
  /// then, as far as anyone knows, is its time, not the lease's wait for the rescue.
  void EndRescued(const std::string& host, int64_t silent_ms,
                  const std::vector<RunningAttempt>& attempts);
  /// Why pending task `id` was not started at its last pick (a full disk: kNoSpaceDetail and
  /// what failed), until it is picked again; nullopt when it was not so.
  std::optional<std::string> NotStartedWhy(TaskId id) const;
  /// The nice, ionice and limits of `task`: its queue's, with its job's own over them.
  Resources ResourcesOf(const Task& task) const;
  /// Removes the files of tasks the store no longer holds (purged, cleaned), logging what
  /// could not be removed: on a thread of its own, as a tree may take seconds to remove.
  void RemoveTaskFiles(const std::vector<TaskId>& ids);
  /// Waits until the files of every task given to RemoveTaskFiles so far are removed.
  void AwaitRemovals() { removals_.Drain(); }
  /// With a shared store: removes the files this host keeps of tasks the store no longer holds,
  /// those another host purged or cleaned (SPEC 12). A task the store holds keeps its files.
  void RemoveFilesOfGoneTasks();

 private:
  /// A task a turn moved to running, started once the turn is committed.
  struct Claim {
    TaskId id = 0;
    int attempt = 0;
    Result<Task> task;  ///< as its start left it; an error fails the attempt at its start
    std::optional<Result<Account>> account;  ///< whom it runs as (system mode)
    UnitGrant units;                         ///< the resource units its attempt holds
  };
  /// What a turn's writes did, told once they are committed.
  struct News {
    std::vector<TaskId> ended;   ///< now terminal
    std::vector<Task> finished;  ///< those of `ended` whose attempt ended, as they are now
    std::vector<std::tuple<Task, int, AttemptOutcome>> retrying;  ///< waiting for a retry
    std::vector<std::tuple<Task, int, AttemptOutcome>> advanced;  ///< waiting for a next stage
    std::vector<double> run_seconds;                              ///< the ended attempts'
    std::vector<int> picks;  ///< the priority of each task the chooser picked
  };

  void Turn();
  /// True when this host runs attempt `attempt` of `id`, or keeps its end to store.
  bool Knows(TaskId id, int attempt) const;
  /// StopRunning, now.
  void StopNow(TaskId id, TaskReason reason, const StopSignal& how);
  /// Stores the stop of attempt `attempt` of `id`, before its signal goes; asked while a call
  /// waits for the store (a timeout during a wait), right after the wait, the signal going now.
  void RecordStop(TaskId id, int attempt, const StopRequest& stop);
  /// Tells why the store refused `end` for good (a warning when the attempt is no longer this
  /// host's to end), and keeps it from being stored again.
  void EndRefused(const AttemptEnd& end, const Status& refusal);
  /// Claims tasks for the free slots, as the chooser picks them.
  void Choose(std::vector<Claim>& claims, News& news);
  /// Moves the task `pick` to running with its units out of those `held` leaves free (or fails
  /// it user-gone, or leaves a shard to another host, adding its owner to `passing`:
  /// LeavesShardNow); false stops the choosing.
  bool ClaimTask(const Candidate& pick, const UnitsHeld& held, std::vector<Claim>& claims,
                 News& news, std::set<uint32_t>& passing);
  /// True when this host should leave shard `task` to another host for now (SPEC 12): another
  /// live host its queue allows has a free slot and runs fewer of its group's shards. A shard
  /// is left so for at most kLeaveShardMs from the first time, then taken.
  bool LeavesShardNow(const Task& task);
  /// Starts a claimed attempt under the runner; one that cannot start ends spawn-failed.
  void Start(Claim& claim);
  /// What the runner needs to start `claim`'s attempt (its files made), or why it cannot start;
  /// `note` gets what the attempt should say it was not given ("" for nothing).
  Result<Launch> LaunchOf(const Claim& claim, std::string* note) const;
  /// For a task with stages, its context directory (made when missing, owned by `account`, or
  /// tqd's user without one) and what earlier stages passed on in its env file; nothing for a
  /// task without stages.
  Result<StageEnvironment> StageEnvironmentOf(const Task& task, const Account* account) const;
  void Tell(const News& news);
  /// Whether a turn's commit waits for the disk: when it stores submits or a cancelled
  /// attempt's end (CommitSync).
  static CommitSync TurnSync(bool no_submits, const std::vector<AttemptEnd>& ends);
  /// Keeps an attempt's end for the next turn.
  void OnAttemptFinished(TaskId id, int attempt, const AttemptOutcome& outcome,
                         const std::optional<StopRequest>& stop);
  /// Undoes an attempt whose supervisor never started (the task is pending again), or ends it as
  /// OnAttemptFinished does when it was asked to stop or the store cannot undo it.
  void ReturnToPending(TaskId id, int attempt, AttemptOutcome outcome,
                       const std::optional<StopRequest>& stop);
  /// Stores an attempt's end (a retry or the task's end), adding what it did to `news`; a store
  /// fault comes back so the end can be kept and stored later.
  Status StoreEnd(AttemptEnd& end, News& news);
  /// A store call of a turn (or of the watcher's work) failed: logged at most once per 10 s,
  /// and the timed turns pause, longer each time, until one works (StoreFaults).
  void StoreFailed(const std::string& message) { faults_.Failed(message); }
  /// The wall-clock time of monotonic time `mono` (now for a time past).
  WallMs WallAt(MonoMs mono) const;
  /// Arms the timers of delayed tasks (at `due`, the next due time or why it is not known) and
  /// of the watcher, no earlier than the store's pause, and a turn at `starts_wait` (monotonic)
  /// when a turn did not choose for the pause of starts.
  void ArmTimers(std::optional<MonoMs> starts_wait, const Result<std::optional<WallMs>>& due);

  DispatchParts parts_;
  DispatchEvents events_;
  std::unique_ptr<Runner> runner_;
  std::vector<AttemptEnd> ends_;  ///< ended since the last turn
  /// What others do in the next turn's transaction, and are told after it (JoinNextTurn).
  std::vector<std::pair<std::function<void()>, std::function<void(const Status&)>>> guests_;
  UnstoredEnds unstored_ends_;
  StoreFaults faults_;        ///< the pause and the log of turns the store fails
  StoreFaults start_faults_;  ///< the pause and the log of attempts a full disk kept from starting
  std::map<TaskId, std::string> not_started_;  ///< NotStartedWhy, by task
  /// The running attempts whose stop, asked by another host, this host acted on.
  std::set<std::pair<TaskId, int>> stops_acted_;
  /// Attempts ended here whose end the store refused for good (not a passing fault): the store
  /// may still hold them as running, yet they ran (CheckRunning leaves them).
  std::set<std::pair<TaskId, int>> ends_refused_;
  /// The tasks this host started, as their starts left them (but their stdin), until their ends
  /// are stored: an end reads none again (one adopted at a restart or rescued from another host
  /// is read).
  std::map<std::pair<TaskId, int>, Task> started_;
  Watcher watcher_;
  std::mt19937_64 rng_;
  ServedLog served_;  ///< when each owner last had a task started: the chooser's fairness
  std::map<TaskId, MonoMs> leaving_;  ///< shards left to other hosts, since when (LeavesShardNow)
  std::optional<MonoMs> queue_retry_at_;  ///< when to look again at queues another host held
  EventLoop::TimerId due_timer_ = 0;
  EventLoop::TimerId watcher_timer_ = 0;
  /// Removes the files of removed tasks off the loop; declared last, so it finishes (and its
  /// thread is joined) first, while everything it uses is still there.
  BackgroundWork removals_;
};

/// Running attempts in `queue` (or all) among the store's `counts` per queue.
int RunningCount(const std::map<std::string, int>& counts, const std::optional<std::string>& queue);
/// How many tasks of `queue` may run at once: its run-time setting (`tq queue set`), else
/// tqd.toml's; 0: no cap.
int QueueCap(const QueueState& queue, const Config& config);
/// How `queue` orders its own ready tasks: its run-time setting, else tqd.toml's.
PriorityMix QueueMix(const QueueState& queue, const Config& config);

}  // namespace tq
