// The persistent store of tasks and attempts, as an interface: SQLite today, other backends
// later. Every method is called from the daemon's single event-loop thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/model/attempt_outcome.h"
#include "core/model/clock.h"
#include "core/model/priority_mix.h"
#include "core/model/ready_order.h"
#include "core/model/status.h"
#include "core/model/task.h"
#include "core/model/task_changes.h"
#include "core/model/unit_holder.h"
#include "core/store/store_waiter.h"

namespace tq {

/// The ready tasks a host looks at, by where they were placed (TaskSpec::run_on, SPEC 12). The
/// default is one host's store, where no task is placed.
struct ReadyPlaces {
  std::string host;      ///< also the tasks placed on this host ("": no placed tasks)
  bool unplaced = true;  ///< the tasks placed on no host
};

/// An ended attempt's output as the store keeps it for every host (SPEC 12): each stream's bytes
/// as the host that ran it captured them (head and tail), and the order they were written in.
struct StoredOutput {
  std::string stdout_bytes;
  std::string stderr_bytes;
  std::string order;  ///< the attempt's order file (output_order.h)
};

/// Filters for List; empty fields match everything.
struct ListFilter {
  std::optional<uint32_t> owner_uid;  ///< nullopt: every owner (root, admins)
  std::vector<TaskState> states;      ///< only tasks in one of these states (empty: any state)
  std::optional<std::string> queue;
  std::optional<std::string> label;
  std::optional<TaskId> before_id;  ///< only tasks older than this one (the next page)
  int limit = 100;                  ///< newest first
};

/// What a submit did (SPEC 3); for a keyed submit, also the older versions it ends.
struct SubmitOutcome {
  TaskId id = 0;               ///< the new, returned or replaced task; the newer one when refused
  bool inserted = false;       ///< a new row (or a replaced request) that the chooser may now run
  bool refused_newer = false;  ///< a higher version exists: nothing changed
  bool new_queue = false;      ///< the store knew no queue of this name before this submit
  std::vector<TaskId> ended;   ///< tasks made terminal here (superseded pending versions)
  std::vector<TaskId> to_terminate;  ///< running older versions the daemon must stop (superseded)
};

/// A shard of a group and where it is.
struct ShardState {
  TaskId id = 0;
  TaskState state = TaskState::kPending;
  std::string host;  ///< the host its open attempt runs on; "" when it has none
  bool operator==(const ShardState&) const = default;
};

/// What SubmitShards made: the group's id and its shards' ids, by index.
struct ShardedSubmit {
  TaskId group = 0;
  std::vector<TaskId> ids;
  bool new_queue = false;     ///< the store knew no queue of this name before
  std::vector<TaskId> ended;  ///< shards failed at once: a dependency had failed already
};

/// One request of a group commit.
struct SubmitItem {
  Owner owner;
  TaskSpec spec;
  bool supersede_running = false;
};

/// A queue as the store keeps it: the run-time settings `tq queue` changed.
struct QueueState {
  std::string name;
  bool paused = false;
  std::optional<int> concurrency;           ///< set by `tq queue set`; nullopt: tqd.toml decides
  std::optional<PriorityMix> priority_mix;  ///< set by `tq queue`; nullopt: tqd.toml decides
  bool added = false;                       ///< made by `tq queue add`: kept while idle
};

/// How many tasks the store holds in one queue and state (a pair with none is absent).
struct TaskCount {
  std::string queue;
  TaskState state = TaskState::kPending;
  int64_t count = 0;
};

/// An attempt Store::StartAndRead started, and its task as the start left it.
struct StartedAttempt {
  int number = 0;
  Result<Task> task;  ///< why it could not be read, should it not be (the attempt stays started)
};

/// An attempt the store believes is running, for reconciliation at start-up.
struct RunningAttempt {
  TaskId task_id = 0;
  int number = 0;
  int64_t timeout_ms = 0;  ///< the task's running-time limit (0: none)
  WallMs started = 0;      ///< when the attempt started, to re-arm its timeout after a restart
  std::optional<StopRequest> stop;  ///< a stop already asked of it, if any
  bool keep_background = false;     ///< its task keeps what it leaves running
  /// The host that started it: another than the one holding it when taken from a fenced host.
  std::string host;
};

/// HostRecord::beats of a host another host fenced.
constexpr int64_t kFencedBeats = -1;
/// HostRecord::beats of a host whose tqd stopped cleanly (Store::LeaveHost).
constexpr int64_t kStoppedBeats = -2;

/// A tqd that shares the store (SPEC 12), as its row in the store says.
struct HostRecord {
  std::string name;     ///< tqd.toml's `host`, else the machine's hostname
  std::string version;  ///< the tqd version it runs
  int64_t epoch = 0;    ///< how many times it joined or was fenced: its attempts' fencing number
  /// Heartbeats since it joined (stops when it does); kFencedBeats once fenced, kStoppedBeats
  /// once its tqd stopped cleanly (until it joins again).
  int64_t beats = 0;
  WallMs started = 0;  ///< when it joined, on its clock
  /// Its last heartbeat (or join), on the store's clock: PostgreSQL's, for every host alike;
  /// SQLite's file is one machine's, whose clock tqd gave.
  WallMs heartbeat = 0;
  /// How long before the read its last heartbeat was, on the store's clock (Store::Hosts).
  int64_t silent_ms = 0;
  int max_running = 0;  ///< its max_running
  int running = 0;      ///< attempts the store holds as running on it
};

/// How many attempts the store holds as running, per queue and per owner (Store::Running).
struct RunningTally {
  std::map<std::string, int> by_queue;  ///< a queue with none is absent
  std::map<uint32_t, int> by_owner;     ///< an owner with none is absent
};

/// What RemoveFinished removed.
struct RemovedTasks {
  std::vector<TaskId> ids;   ///< the tasks removed, in the order asked
  int64_t output_bytes = 0;  ///< the output their attempts had kept (their output_bytes)
};

/// One firing of a job: (job, scheduled) is its key, so it happens at most once.
struct Firing {
  std::string job;
  WallMs scheduled = 0;  ///< the schedule's time; for @reboot, when the daemon fired it
  std::string boot_id;   ///< @reboot: the boot (kernel boot id) it fires for; "" otherwise
};

/// What Fire did.
struct FireOutcome {
  /// False when nothing changed: (job, scheduled) is already recorded, `scheduled` is at or
  /// before the job's last firing, or (@reboot) this boot's firing is done.
  bool fired = false;
  std::optional<TaskId> task;  ///< the task created, when Fire was given one; a group's id
  std::vector<TaskId> shards;  ///< a sharded run's shards, by index
};

/// What the store keeps of a job between restarts (the definition itself lives in job files).
struct JobRecord {
  std::string job;
  WallMs first_seen = 0;             ///< when the store first knew it: it never fires before
  std::optional<WallMs> last_fired;  ///< the scheduled time of its last firing (run or not)
  /// The scheduled time of its latest firing that made a run, while the store keeps that task.
  std::optional<WallMs> last_run;
  std::string boot_id;              ///< the boot whose @reboot firing is done ("" none)
  bool disabled = false;            ///< `tq jobs disable`
  std::optional<TaskId> last_task;  ///< its latest task (a firing or `tq jobs run`)
  /// The latest task's state, reason and exit code, while the store still holds it.
  std::optional<TaskState> last_state;
  TaskReason last_reason = TaskReason::kNone;
  int last_exit_code = -1;
  std::optional<WallMs> last_success;  ///< when a run of it last succeeded (SPEC 7a)
  /// The time its dead man's switch last raised an alert counting from (its last success, or
  /// first_seen): one alert per stretch without success.
  std::optional<WallMs> overdue_alerted;
};

/// The unfinished runs of one job.
struct JobRuns {
  std::vector<TaskId> pending;
  std::vector<TaskId> running;
  /// Pending, but its run has begun (a later stage, or a shard of a group a shard of which has
  /// started): in flight.
  std::vector<TaskId> between_stages;
  /// The runs as overlap counts them: a sharded run (a group) is one run, in flight while any
  /// of its shards is, else pending.
  int pending_runs = 0;
  int in_flight_runs = 0;
};

/// The last good text of a job file, kept so that a file that breaks keeps its jobs in force,
/// also across a restart.
struct StoredJobFile {
  std::string path;
  std::string text;
  WallMs saved = 0;
};

/// Whether a commit waits for the disk. With durability "full" every commit does (kNow) but
/// those nothing was promised of (kLater): a turn of dispatch that stores only claims and ends
/// leaves its sync to the next synced commit or checkpoint, which carries it to the disk with
/// its own. A crash of tqd loses none of it (the commit is in the file); a power cut may, and
/// then the work it recorded runs again: execution is at least once across a power loss (SPEC
/// 6), as the shims' status records are not synced either. PostgreSQL decides its own syncs.
enum class CommitSync { kNow, kLater };

/// The store. Methods return a Status naming the problem on I/O or constraint failure; they
/// never throw. Writes are durable when they return (per the configured durability; a
/// WriteTogether asked for CommitSync::kLater, once a later commit syncs).
///
/// Errors are typed by Status::fault(). A refusal of the request (kNotFound, kInvalid naming the
/// field) is not a fault: kNone. A failure of the store itself is kInternal with a fault kind:
/// kTransient when the same call may succeed if tried again (busy, locked, an I/O error, a lost
/// connection), kPermanent when it fails until something changes (constraint, corrupt, full,
/// read-only, a schema this binary does not know). Nothing is written by a call that fails.
/// The daemon keeps an attempt's end whose store failed with any fault, and stores it later.
class Store {
 public:
  virtual ~Store() = default;

  /// Submits one task for `owner` at `now`: without a key an Insert; with spec.key the decision
  /// of SPEC 3 (DecideKeyedSubmit) inside one transaction, so racing submits of the same key and
  /// version end with exactly one task. A replaced task keeps its id, loses its attempts and is
  /// pending again; superseded pending versions end cancelled with reason superseded.
  virtual Result<SubmitOutcome> Submit(const Owner& owner, const TaskSpec& spec, WallMs now,
                                       bool supersede_running) = 0;

  /// Stores, each committed on its own, the rows a task shares with other tasks (its `queue`,
  /// its environment `env`) before a transaction inserts it; inside a transaction it does
  /// nothing. Then no transaction of this host's holds other hosts' submits up on a row it made
  /// (PostgreSQL: a host frozen before its commit). Submit, SubmitBatch, SubmitShards, Insert
  /// and UpdatePending call it; inside WriteTogether the caller does, before it. Best effort: a
  /// row it could not store is stored by the transaction, as before.
  virtual void PrepareInsert(const std::string& queue, const std::vector<std::string>& env) = 0;

  /// Submits independent requests together in one transaction, so they share one sync (group
  /// commit); each succeeds or fails on its own, as Submit would. If the commit itself fails,
  /// every result carries that error. Inside WriteTogether they join its transaction instead,
  /// and are stored only if it commits.
  virtual std::vector<Result<SubmitOutcome>> SubmitGroup(const std::vector<SubmitItem>& items,
                                                         WallMs now) = 0;

  /// Submits many tasks in one transaction: all or nothing. Returns the ids in order.
  virtual Result<std::vector<TaskId>> SubmitBatch(const Owner& owner,
                                                  const std::vector<TaskSpec>& specs,
                                                  WallMs now) = 0;

  /// Submits `total` (1..kMaxShards) shards of `spec` in one transaction, all or nothing: a
  /// group id taken from the tasks' ids (no task ever has it) and one task per index, each with
  /// spec.shard naming the group, its index and `total`. A spec with a key is refused (field
  /// "key").
  virtual Result<ShardedSubmit> SubmitShards(const Owner& owner, const TaskSpec& spec, int total,
                                             WallMs now) = 0;
  /// Group `group`'s shards that the store holds, by index; empty when it holds none (no such
  /// group, or all purged). O(shards), on an index.
  virtual Result<std::vector<ShardState>> ShardsOf(TaskId group) = 0;
  /// Claims the telling of group `group`'s end: true when every shard the store holds has ended
  /// and this end of the group (a retry of a shard makes a new one) was claimed by no one before,
  /// so that of the hosts that see the group end exactly one runs its hooks (SPEC 12); false
  /// otherwise, and for a group the store holds no shard of.
  virtual Result<bool> ClaimGroupEnd(TaskId group) = 0;

  /// Inserts a new pending task for `owner` created at `now`. Each id in spec.after must name a
  /// task of the same owner (else kNotFound naming the id). The task is ready at once when it has
  /// no unfinished dependency and not_before <= now.
  virtual Result<TaskId> Insert(const Owner& owner, const TaskSpec& spec, WallMs now) = 0;

  /// The task with its attempts, or kNotFound.
  virtual Result<Task> Get(TaskId id) = 0;

  /// The task with its attempts but without its stdin and environment (what deciding who may
  /// see it, answering a wait or a cancel needs), or kNotFound.
  virtual Result<Task> GetSummary(TaskId id) = 0;
  /// The tasks of `ids` the store holds (the others are left out), by id, each as GetSummary
  /// reads it: two statements for up to 500 tasks, whatever their attempts (and one more for
  /// each task with stages).
  virtual Result<std::vector<Task>> GetSummaries(const std::vector<TaskId>& ids) = 0;

  /// Tasks matching `filter`, newest first, each with only its last attempt (where it runs or
  /// ran), if any.
  virtual Result<std::vector<Task>> List(const ListFilter& filter) = 0;

  /// Those of `ids` whose task has ended (succeeded, failed, cancelled or expired), in id order;
  /// ids of no task are left out. One read, whatever the number of ids.
  virtual Result<std::vector<TaskId>> EndedAmong(const std::vector<TaskId>& ids) = 0;

  /// Every owner with a ready task in `queue`, by uid. O(owners log n).
  virtual Result<std::vector<uint32_t>> ReadyOwners(const std::string& queue) = 0;
  /// The first ready task of `owner_uid` in `queue` in `order` among those `places` names,
  /// passing over the tasks whose unit request is in `unfit` (as EncodeUnitRequest spells it), or
  /// nullopt when none is ready. O(log n) per place, plus the passed-over tasks ahead of it.
  virtual Result<std::optional<Candidate>> FirstReady(
      const std::string& queue, uint32_t owner_uid, ReadyOrder order,
      const std::vector<std::string>& unfit, const ReadyPlaces& places = ReadyPlaces()) = 0;
  /// The different unit requests of the ready tasks, as EncodeUnitRequest spells them.
  /// O(requests log n).
  virtual Result<std::vector<std::string>> ReadyUnitRequests() = 0;
  /// The units the running attempts of the joined host hold (each host has its own units), by
  /// task id. O(running attempts).
  virtual Result<std::vector<UnitHolder>> HeldUnits() = 0;
  /// The first ready task of `queue` in `order` among every owner's. O(owners log n).
  virtual Result<std::optional<Candidate>> FirstReady(const std::string& queue,
                                                      ReadyOrder order) = 0;

  /// Makes up to `limit` pending tasks whose not_before has come (and whose dependencies are
  /// done) ready, earliest first; returns how many became ready (`limit`: there may be more).
  /// `next_due`, when given, is set to the earliest not_before after `now` among the pending
  /// tasks that wait only for time (NextDue once these are ready), read with the promotion.
  virtual Result<int> PromoteDue(WallMs now, int limit,
                                 std::optional<WallMs>* next_due = nullptr) = 0;

  /// The earliest not_before among pending tasks that wait only for time, if any.
  virtual Result<std::optional<WallMs>> NextDue() = 0;

  /// Moves a ready pending task to running and opens attempt number attempt_count+1 holding
  /// `units` on the joined host, in one conditional update; nullopt if the task was no longer
  /// ready (it never starts twice); an error, changing nothing, when the joined host was fenced.
  virtual Result<std::optional<int>> StartAttempt(TaskId id, WallMs now,
                                                  const UnitGrant& units) = 0;
  /// StartAttempt, with the task as its start left it (StartedTask of the task as read before
  /// it, on the joined host); nullopt if it was no longer ready. PostgreSQL starts and reads a
  /// task in one round trip.
  virtual Result<std::optional<StartedAttempt>> StartAndRead(TaskId id, WallMs now,
                                                             const UnitGrant& units) = 0;
  /// StartAttempt of task `id`, read before it as `read` (a claim that decided on the task): the
  /// attempt and StartedTask of `read` (or `read`'s error); nullopt if it was no longer ready.
  virtual Result<std::optional<StartedAttempt>> StartRead(TaskId id, Result<Task> read, WallMs now,
                                                          const UnitGrant& units) = 0;

  /// Records a stop asked of a running attempt. The first request wins: a later one (a timeout
  /// during a cancel's grace) changes nothing, and so does one for an attempt that has ended. Any
  /// host may record it: the host that runs the attempt acts on it (SPEC 12).
  virtual Status RecordStop(TaskId id, int attempt, const StopRequest& stop) = 0;

  /// Keeps `note` as the detail of a running attempt (what tqd left out of what it was given);
  /// its end keeps the note unless the end brings a detail of its own.
  virtual Status NoteAttempt(TaskId id, int attempt, const std::string& note) = 0;

  /// Closes a running attempt with `outcome` (keeping its pid when outcome.pid is 0) and moves
  /// the task to `final_state` with `reason`. Dependents of a task that succeeded become ready
  /// when nothing else holds them; pending dependents of a task that failed or was cancelled fail
  /// at once with reason dependency-failed, transitively. Returns every task this made terminal
  /// besides `id`. kInvalid naming the attempt, changing nothing, when it passed to another host
  /// that fenced the joined one (its fencing number is stale). `output`, when given, is kept
  /// with the end as SaveOutput keeps it.
  virtual Result<std::vector<TaskId>> FinishAttempt(TaskId id, int attempt,
                                                    const AttemptOutcome& outcome,
                                                    TaskState final_state, TaskReason reason,
                                                    const StoredOutput* output = nullptr) = 0;

  /// Closes a running attempt with `outcome` and makes the task pending again, to be ready at
  /// `not_before` with `priority` (a retry, SPEC 5).
  virtual Status RetryLater(TaskId id, int attempt, const AttemptOutcome& outcome,
                            WallMs not_before, int priority) = 0;

  /// Closes a running attempt that ended its stage with success and makes the task pending again
  /// at its next stage (SPEC 13): ready at once (unless its job holds it), with its submitted
  /// priority and a fresh retry budget for the new stage. kInvalid naming "stage" when the stage
  /// that ran was the task's last.
  virtual Status AdvanceStage(TaskId id, int attempt, const AttemptOutcome& outcome) = 0;

  /// Moves a pending task to a terminal state (cancelled or failed) with `reason`, failing its
  /// dependents as FinishAttempt does. Empty if it was not pending; otherwise `id` followed by
  /// every dependent this made terminal.
  virtual Result<std::vector<TaskId>> EndPending(TaskId id, TaskState final_state,
                                                 TaskReason reason, WallMs now) = 0;

  /// EndPending of each of `ids` in one transaction, in the order given: all or nothing. A task
  /// no longer pending (ended as an earlier one's dependent, say) or gone is left out. Returns
  /// every task made terminal.
  virtual Result<std::vector<TaskId>> EndPendingAll(const std::vector<TaskId>& ids,
                                                    TaskState final_state, TaskReason reason,
                                                    WallMs now) = 0;
  /// Makes `changes` to pending task `id` in one write; true when that made its queue (as
  /// Submit's new_queue). Whether it is ready is decided again (a new start time, say). kNotFound
  /// for no such task; kInvalid naming "state" for a task that is not pending.
  virtual Result<bool> UpdatePending(TaskId id, const TaskChanges& changes, WallMs now) = 0;
  /// Keeps these pending tasks from starting (`hold`) or lets them start again, in one write;
  /// the ids it changed (a task not pending, already so, or not there is left as it is). A
  /// running task with a later stage may be held too: its next stage waits for the release. A
  /// released task is ready at once when it is due and nothing else holds it.
  virtual Result<std::vector<TaskId>> SetHeld(const std::vector<TaskId>& ids, bool hold,
                                              WallMs now) = 0;

  /// `tq retry`: a failed or cancelled task becomes pending again at `now` with its original
  /// priority and a fresh retry budget (its attempts stay in its history), at the stage where it
  /// stopped. False if it was in another state.
  virtual Result<bool> Requeue(TaskId id, WallMs now) = 0;

  /// Requeue of each of `ids` in one transaction, in the order given: all or nothing. With
  /// `skip_blocked`, a task whose dependency is failed or cancelled is left as it is instead of
  /// refusing the whole call. A task with stages resumes at the stage where it stopped, or at the
  /// index `restart_at` gives for it (SPEC 13). With `succeeded`, a succeeded or expired task
  /// runs again too, and its pending dependents wait for the new run. Returns the ids that
  /// became pending.
  virtual Result<std::vector<TaskId>> RequeueAll(const std::vector<TaskId>& ids, WallMs now,
                                                 bool skip_blocked,
                                                 const std::map<TaskId, int>& restart_at,
                                                 bool succeeded = false) = 0;

  /// How many attempts failed since the task was submitted or last re-queued: the count the
  /// retry budget is measured against.
  virtual Result<int> FailedSinceQueued(TaskId id) = 0;

  /// Fails, with reason expired-pending, up to `limit` tasks still pending at `now` past their
  /// pending_ttl (and their dependents). Returns every task made terminal.
  virtual Result<std::vector<TaskId>> ExpirePendingTtl(WallMs now, int limit) = 0;
  /// The earliest time a pending task's pending_ttl runs out, if any.
  virtual Result<std::optional<WallMs>> NextPendingTtl() = 0;

  /// Moves up to `limit` tasks that succeeded at or before `cutoff` to expired.
  virtual Result<std::vector<TaskId>> ExpireSucceeded(WallMs cutoff, int limit) = 0;
  /// Deletes up to `limit` failed, cancelled or expired tasks that ended at or before `cutoff`
  /// (with their attempts and unreferenced environments); returns their ids so their files can
  /// be removed.
  /// A queue with no run-time setting that no task holds any more is forgotten with them.
  virtual Result<std::vector<TaskId>> PurgeEnded(WallMs cutoff, int limit) = 0;
  /// `tq clean`: deletes each of `ids` that is finished (succeeded, failed, cancelled or
  /// expired) with its attempts, as PurgeEnded does, in one transaction; a task in another
  /// state, or gone, is left out.
  virtual Result<RemovedTasks> RemoveFinished(const std::vector<TaskId>& ids) = 0;
  /// The earliest `finished` among succeeded tasks, and among failed/cancelled/expired ones: when
  /// retention next has work.
  virtual Result<std::optional<WallMs>> OldestSucceeded() = 0;
  virtual Result<std::optional<WallMs>> OldestEnded() = 0;

  /// Runs `body`, whose writes share one transaction and one sync (a turn of cron firings):
  /// each write inside still succeeds or fails whole, and when the commit fails every one of
  /// them is undone (the error is returned). Not nested. `sync` says whether the commit waits
  /// for the disk (CommitSync).
  virtual Status WriteTogether(const std::function<Status()>& body, CommitSync sync) = 0;
  /// WriteTogether, its commit on the disk before it returns.
  Status WriteTogether(const std::function<Status()>& body) {
    return WriteTogether(body, CommitSync::kNow);
  }
  /// Runs `effect` (an event, an answer, a signal, a counter) once the write under way is stored:
  /// inside WriteTogether when its transaction commits, never when it rolls
  /// back; elsewhere at once, each write there having committed before it returned (SPEC 6).
  virtual void AfterCommit(std::function<void()> effect) = 0;
  /// Inside WriteTogether: holds those of `queues` that no other host's claim holds until it
  /// ends, so that the claims of several hosts in these queues take turns, never waiting for
  /// each other, and each counts the attempts the others started (a queue's concurrency is the
  /// cluster's). Returns the queues held; on one host's store, all of them.
  virtual Result<std::vector<std::string>> HoldQueues(const std::vector<std::string>& queues) = 0;

  /// Every queue with its run-time settings.
  virtual Result<std::vector<QueueState>> QueueStates() = 0;
  /// Queue `name` with its run-time settings, nullopt when the store has no such queue. One
  /// index probe.
  virtual Result<std::optional<QueueState>> QueueStateOf(const std::string& name) = 0;
  /// How many queues the store has whose names begin with `prefix` (a user's own: "alice/").
  /// O(queues).
  virtual Result<int64_t> QueuesNamedFrom(const std::string& prefix) = 0;
  /// The queues in which `owner_uid` has a pending or running task, by name. O(their tasks).
  virtual Result<std::vector<std::string>> ActiveQueuesOf(uint32_t owner_uid) = 0;
  /// The queues that hold a ready task, with their run-time settings: one index probe per such
  /// queue, none for the queues without ready tasks, however many there are.
  virtual Result<std::vector<QueueState>> ReadyQueues() = 0;
  /// Pauses or resumes a queue (creating it if new); persisted.
  virtual Status SetQueuePaused(const std::string& queue, bool paused) = 0;
  /// Sets (or with nullopt clears) a queue's run-time concurrency; persisted.
  virtual Status SetQueueConcurrency(const std::string& queue, std::optional<int> concurrency) = 0;
  /// Sets (or with nullopt clears) a queue's run-time priority mix; persisted.
  virtual Status SetQueuePriorityMix(const std::string& queue, std::optional<PriorityMix> mix) = 0;
  /// Makes queue `queue` with these settings (`added`: kept while idle); kInvalid naming "name"
  /// when the store has it already.
  virtual Status AddQueue(const QueueState& queue) = 0;

  /// Keeps `output` of attempt `attempt` of task `id`, replacing what was kept of it; kNotFound
  /// when the store holds no such attempt. The copy goes with its attempt (a purge, a keyed
  /// replace).
  virtual Status SaveOutput(TaskId id, int attempt, const StoredOutput& output) = 0;
  /// The output kept of attempt `attempt` of task `id`, or nullopt when none was.
  virtual Result<std::optional<StoredOutput>> SavedOutput(TaskId id, int attempt) = 0;

  /// Every attempt the store holds as running on the joined host.
  virtual Result<std::vector<RunningAttempt>> RunningAttempts() = 0;
  /// How many attempts the store holds as running, per queue (a queue with none is absent):
  /// where the caps (max_running, a queue's concurrency) are counted. An attempt whose end could
  /// not be stored yet still runs here. O(running attempts).
  virtual Result<std::map<std::string, int>> RunningCounts() = 0;
  /// How many tasks the store holds in each (queue, state) pair that has any, ordered by queue
  /// name and then state (in TaskState's order); every count is above 0. O(queues x states), for
  /// status lines and metrics: never a scan of the tasks.
  virtual Result<std::vector<TaskCount>> TaskCounts() = 0;
  /// Calls `observe` with the seconds each commit takes from now on, its sync included: the
  /// cost of durability (tq_store_commit_seconds).
  virtual void ObserveCommits(std::function<void(double seconds)> observe) = 0;
  /// Has each wait for the answer of a network store (PostgreSQL) wait through `waiter`: tqd
  /// waits on its event loop, which meanwhile runs only what needs no store. A store on the
  /// local disk does not wait so (its calls are short, or as long as the disk makes them).
  virtual void WaitWith(StoreWaiter waiter) = 0;
  /// How many attempts the store holds as running, per owner uid (an owner with none is
  /// absent): where max_running of [user_limits] is counted. O(running attempts).
  virtual Result<std::map<uint32_t, int>> RunningByOwner() = 0;
  /// RunningCounts and RunningByOwner in one statement (a turn of dispatch needs both).
  virtual Result<RunningTally> Running() = 0;
  /// How many pending tasks `owner_uid` has (max_pending). O(its pending tasks), on an index.
  virtual Result<int64_t> PendingOf(uint32_t owner_uid) = 0;
  /// The output bytes kept for the tasks of `owner_uid`: the sum of their attempts'
  /// output_bytes, until the tasks are purged (output_bytes of [user_limits]). O(1).
  virtual Result<int64_t> OutputOf(uint32_t owner_uid) = 0;

  /// Undoes running attempt `attempt` whose supervisor provably never started (SPEC 6): drops
  /// the attempt and makes the task pending and ready again without using a retry; with
  /// `not_before` (> 0) it waits until then instead (a start a full disk prevented). kInvalid
  /// naming the attempt when it is not the task's running attempt.
  virtual Status UnstartAttempt(TaskId id, int attempt, WallMs not_before = 0) = 0;
  /// The dependencies of task `id` that have not succeeded or expired yet (what a pending task
  /// still waits for), in the order given at submit; purged ones are done.
  virtual Result<std::vector<TaskId>> UnfinishedDeps(TaskId id) = 0;
  /// Forgets a queue and its run-time settings (`tq queue delete`): kNotFound naming it when the
  /// store does not hold it, kInvalid while a task of it is pending or running. Finished tasks
  /// keep their queue's name; `tq retry` of one creates the queue again.
  virtual Status DeleteQueue(const std::string& queue) = 0;

  // Hosts (SPEC 12). A store acts for the host it joined as: the attempts it starts carry that
  // host and its epoch (their fencing number), and RunningAttempts lists that host's only. A store
  // that joined no host acts for the host "" (one host, and tests).

  /// Joins as `host`: makes its row, or takes it over with the next epoch (a restart, or a return
  /// after being fenced), with no beats and `now` as its start and heartbeat. The host takes over
  /// the attempts not ended of host "" (started before hosts were kept) and, in a store only one
  /// machine can open (SQLite), those of every other name too (the machine was renamed).
  virtual Status JoinHost(const std::string& host, const std::string& version, int max_running,
                          WallMs now) = 0;
  /// Records a heartbeat of the joined host (beats + 1, heartbeat the store's time: PostgreSQL's
  /// now(), in one statement of its own; SQLite's `now`) and returns that time; nullopt when its
  /// epoch moved on (another host fenced it): its attempts are no longer its own, and it must
  /// end the tasks it still runs and join again. `now` for a store that joined no host.
  virtual Result<std::optional<WallMs>> Heartbeat(int max_running, WallMs now) = 0;
  /// The epoch of the host this store joined as (0: none), its attempts' fencing number.
  virtual int64_t HostEpoch() const = 0;
  /// Acts for `host` at `epoch`, which joined through another session with the same store: the
  /// host lease's session of its own, so that heartbeats and fencing never wait behind the
  /// statements of the session that claims and ends (SPEC 12).
  virtual Status ActForHost(const std::string& host, int64_t epoch) = 0;
  /// Marks the joined host as stopped cleanly (its beats become kStoppedBeats), so that the
  /// other hosts show it stopped rather than live until it joins again; it is fenced past its
  /// lease as a silent host is, its running attempts rescued. Nothing once it was fenced.
  virtual Status LeaveHost() = 0;
  /// Every host the store knows, by name, with the attempts each runs and how long each has been
  /// silent by the store's clock (`now` is SQLite's, PostgreSQL reads its own): one query.
  virtual Result<std::vector<HostRecord>> Hosts(WallMs now) = 0;
  /// Fences `host` if it has beaten no more since the caller saw `beats` (it is silent): its
  /// epoch moves on and its beats become -1, so it starts nothing more, is fenced only once, and
  /// learns at its next heartbeat that it was fenced. Its running attempts pass to the joined host
  /// (which holds no shim of theirs) and are returned, for the caller to end as lost by their
  /// policy; an attempt whose row another transaction holds (the fenced host froze inside its
  /// end) is left to TakeFenced. nullopt, changing nothing, when it beat since, is unknown or
  /// the joined host, or the caller joined none or was fenced itself.
  virtual Result<std::optional<std::vector<RunningAttempt>>> FenceHost(const std::string& host,
                                                                       int64_t beats) = 0;
  /// The running attempts that fenced hosts still hold, started in a claim that committed after
  /// their fencing (a host that froze inside one) or left by FenceHost: they pass to the joined
  /// host, as FenceHost's do, and are returned with the fenced host that held each. Rows another
  /// host's sweep holds are left to it. Empty for a store only one host opens, a caller that joined
  /// no host, or one fenced itself.
  virtual Result<std::vector<std::pair<std::string, RunningAttempt>>> TakeFenced() = 0;
  /// Fails, with reason context-lost, the pending tasks at a later stage (SPEC 13) placed on a
  /// fenced host: the host that ran their first stage, where their context is, or the one they
  /// were placed on; their dependents fail as EndPending's do. Returns every task made
  /// terminal. Rows another host's sweep holds are left to it. Empty for a store one host opens.
  virtual Result<std::vector<TaskId>> EndContextLost(WallMs now) = 0;
  /// The attempts the joined host started that passed to another host when it was fenced, as
  /// (task, attempt number), oldest first: their processes may still run on this machine, to be
  /// killed. Kept until their tasks are purged.
  virtual Result<std::vector<std::pair<TaskId, int>>> PassedOnAttempts() = 0;

  // Cron jobs (SPEC 7). A task whose spec.job is set is a run of that job: an indexed column,
  // never a label scan. Any task inserted with spec.job becomes that job's last_task (when the
  // store knows the job). A job_exclusive task is ready only while no other task of its job is
  // running: StartAttempt of a job's task keeps its exclusive siblings from being ready in the
  // same transaction, and when a job's running attempt ends (FinishAttempt, RetryLater,
  // UnstartAttempt) its exclusive siblings that are otherwise ready become ready again.

  /// Records `firing` and makes its time the job's last firing, and when `spec` is given creates
  /// that task for `owner` (as Insert does) in the same transaction: no crash can fire one time
  /// twice or record a firing without its task. A spec with `shard` set makes a group of
  /// shard->total shards instead (as SubmitShards does; the store sets group and index), and
  /// the job's last task is the group. Keeps only the firing rows that still matter
  /// (those with a task the store holds, and the latest one). A job the store holds as disabled
  /// (`tq jobs disable` on any host) gets no run: with a spec, nothing is recorded.
  virtual Result<FireOutcome> Fire(const Firing& firing, const Owner& owner,
                                   const std::optional<TaskSpec>& spec, WallMs now) = 0;
  /// The pending and running tasks of `job`. O(its runs).
  virtual Result<JobRuns> RunsOf(const std::string& job) = 0;
  /// Every job the store knows, with its latest task's outcome: one query.
  virtual Result<std::vector<JobRecord>> JobRecords() = 0;
  /// Makes the store know each of `jobs` (first_seen = `now`); known jobs stay as they are.
  virtual Status AddJobs(const std::vector<std::string>& jobs, WallMs now) = 0;
  /// Forgets each of `jobs` (gone from every job file) whose tasks the store no longer holds:
  /// its record and firings go, so the table holds what is in force and what has tasks kept.
  /// One transaction, O(tasks + jobs).
  virtual Status ForgetJobs(const std::vector<std::string>& jobs) = 0;
  /// `tq jobs disable|enable`: persisted. kNotFound naming the job when the store does not know it.
  virtual Status SetJobDisabled(const std::string& job, bool disabled) = 0;
  /// Records that the dead man's switch of `job` raised its alert for the stretch starting at
  /// `since` (JobRecord::overdue_alerted). Nothing happens for a job the store does not know.
  virtual Status SetJobOverdueAlerted(const std::string& job, WallMs since) = 0;
  /// The last good text of every job file.
  virtual Result<std::vector<StoredJobFile>> JobFiles() = 0;
  /// Stores `files` as the last good texts (replacing those of the same paths) in one transaction.
  virtual Status SaveJobFiles(const std::vector<StoredJobFile>& files) = 0;
  /// Forgets the last good texts of `paths` (files that were removed).
  virtual Status ForgetJobFiles(const std::vector<std::string>& paths) = 0;
};

}  // namespace tq
