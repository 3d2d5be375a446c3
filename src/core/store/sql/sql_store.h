// The Store over SQL, written once for both databases: SQLite (sqlite/, the embedded default)
// and PostgreSQL (postgres/, several hosts). One connection owned by the daemon's single
// event-loop thread; statements are prepared once at open and reused; every write is one
// transaction, and writes of one store never interleave.
//
// Layout (the schema: sqlite/migrations.cc, postgres/schema.cc): tasks carry a `ready` flag and
// a `deps_left` counter kept up to date by every write that changes a task's state, so
// FirstReady, PromoteDue and NextDue each walk one partial index; the pending_ttl and retention
// sweeps walk their own partial indexes. task_counts holds how many tasks each (queue, state) pair
// has, kept by triggers on tasks (a pair with none has no row), so TaskCounts reads a handful of
// rows whatever the tasks. Environments are stored once per distinct content in `envs`, keyed by a
// stable digest. Byte strings round-trip exactly (SQLite BLOB or TEXT, PostgreSQL bytea).
//
// The implementation is split by idea, all members of SqlStore:
//   sql_store.cc     transactions, reads, queues, running attempts
//   connection.*     what a connection layer gives (sqlite/db.*, postgres/pg_db.*)
//   statements.*     every SQL statement, prepared once, in the two dialects
//   task_rows.*      how a task's request and state map to a `tasks` row
//   stored_bytes.*   lists, environments and exit codes as stored values
//   submit.cc        Insert, Submit (SPEC 3), SubmitBatch
//   shards.cc        SubmitShards, ShardsOf (SPEC 12)
//   lifecycle.cc     the ready set, attempts, retries, ends and dependency failure
//   unstart.cc       undoing an attempt whose supervisor never started
//   queue_admin.cc   queue pause, concurrency and delete
//   edit.cc          changing a pending task, holding and releasing it
//   retention.cc     pending_ttl, success retention and purge
//   jobs.cc          cron jobs: firings, job records, job files, holding exclusive runs
//   hosts.cc         hosts: joining, heartbeats, fencing a silent host (SPEC 12)
//
// Choices where the interface leaves room, by design:
// - List leaves `attempts`, `spec.env` and `spec.stdin_data` empty (they can be large); use Get
//   for the whole task.
// - Duplicate ids in spec.after are stored once; Get returns the distinct ids in submit order.
// - spec.priority is the submitted priority; a retry's demotion (RetryLater's `priority`) only
//   changes the order the chooser sees (Candidate::priority), and Requeue restores it.
// - A dependency that already failed or was cancelled does not leave a new task waiting forever:
//   Insert, Submit and SubmitBatch store the task and fail it at once with reason
//   dependency-failed (Submit lists it in `ended`). The same happens to a replaced request.
// - A replace (SPEC 3) rewrites the request, stamps `created` with the time of the replacing
//   submit, and refuses an `after` that would make the task wait for itself (a cycle: a replaced
//   task keeps its older id, so its new dependencies may be newer than it).
// - Insert stores spec.key as given, without the SPEC 3 decision; keyed requests go through
//   Submit.
// - SubmitBatch refuses keyed specs (field "key"): the keyed decision can end or supersede other
//   tasks, which its result cannot report. Its errors start with "entry N: " (1-based).
// - Requeue refuses (kInvalid, field "after") a task whose dependency is failed or cancelled:
//   re-queue dependencies first (ascending ids), or it would wait forever.
// - ExpireSucceeded keeps `finished`, so purge_after counts from the end of the run.
// - RetryLater and Requeue set spec.not_before to the next earliest start (the retry time, or
//   the re-queue time), so Get shows when a waiting retry is due.
// - A task's pending_ttl runs from submit (or replace, or Requeue) until its first start; a task
//   waiting between retries has started and never expires for it.
// - `held` is 1 (kHeldByJob) for the exclusive run below, 2 (kHeldByUser) for a task `tq hold`
//   keeps; either keeps it not ready and outside tasks_delayed. A user's hold outlasts the job's,
//   a keyed replace, retries and stage moves; releasing it leaves the job's hold if that still
//   applies. A running task with a stage after the current one may be held too: it stays
//   running, and is pending held when its stage ends; its final end clears the hold.
// - A run of a job is in flight while running, and while pending at a stage after the first
//   unless the job holds it (it started and is part way through). An exclusive run of a job is
//   `held` (not ready, outside tasks_delayed) while another run of its job is in flight,
//   whatever else it waits for; when the last run in flight stops or ends its held runs
//   are released: ready if due and free of dependencies, else waiting as any task would. After
//   UnstartAttempt "due" means due when the undone attempt started; later ones go through
//   PromoteDue.
// - Fire makes the store know a job it did not know (first_seen = `now`). A boot firing (boot_id
//   set) records the boot, not a last firing time. A job name is any bytes but NUL, not empty.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/store/outbox.h"
#include "core/store/sql/connection.h"
#include "core/store/sql/dialect.h"
#include "core/store/store.h"

namespace tq {

/// The store over an SQL connection. Never throws; every failure of the database is
/// Status::Internal("store: <what> failed: <message>"), and no message carries environment
/// values.
class SqlStore : public Store {
 public:
  ~SqlStore() override;

  Result<SubmitOutcome> Submit(const Owner& owner, const TaskSpec& spec, WallMs now,
                               bool supersede_running) override;
  std::vector<Result<SubmitOutcome>> SubmitGroup(const std::vector<SubmitItem>& items,
                                                 WallMs now) override;
  Result<std::vector<TaskId>> SubmitBatch(const Owner& owner, const std::vector<TaskSpec>& specs,
                                          WallMs now) override;
  Result<ShardedSubmit> SubmitShards(const Owner& owner, const TaskSpec& spec, int total,
                                     WallMs now) override;
  Result<std::vector<ShardState>> ShardsOf(TaskId group) override;
  Result<bool> ClaimGroupEnd(TaskId group) override;
  void PrepareInsert(const std::string& queue, const std::vector<std::string>& env) override;
  Result<TaskId> Insert(const Owner& owner, const TaskSpec& spec, WallMs now) override;
  Result<Task> Get(TaskId id) override;
  Result<Task> GetSummary(TaskId id) override;
  Result<std::vector<Task>> GetSummaries(const std::vector<TaskId>& ids) override;
  Result<std::vector<Task>> List(const ListFilter& filter) override;
  Result<std::vector<TaskId>> EndedAmong(const std::vector<TaskId>& ids) override;
  Result<std::vector<uint32_t>> ReadyOwners(const std::string& queue) override;
  Result<std::optional<Candidate>> FirstReady(const std::string& queue, uint32_t owner_uid,
                                              ReadyOrder order,
                                              const std::vector<std::string>& unfit,
                                              const ReadyPlaces& places = ReadyPlaces()) override;
  Result<std::vector<std::string>> ReadyUnitRequests() override;
  Status SaveOutput(TaskId id, int attempt, const StoredOutput& output) override;
  Result<std::optional<StoredOutput>> SavedOutput(TaskId id, int attempt) override;
  Result<std::vector<UnitHolder>> HeldUnits() override;
  Result<std::optional<Candidate>> FirstReady(const std::string& queue, ReadyOrder order) override;
  Result<int> PromoteDue(WallMs now, int limit, std::optional<WallMs>* next_due = nullptr) override;
  Result<std::optional<WallMs>> NextDue() override;
  Result<std::optional<int>> StartAttempt(TaskId id, WallMs now, const UnitGrant& units) override;
  Result<std::optional<StartedAttempt>> StartAndRead(TaskId id, WallMs now,
                                                     const UnitGrant& units) override;
  Result<std::optional<StartedAttempt>> StartRead(TaskId id, Result<Task> read, WallMs now,
                                                  const UnitGrant& units) override;
  Status RecordStop(TaskId id, int attempt, const StopRequest& stop) override;
  Status NoteAttempt(TaskId id, int attempt, const std::string& note) override;
  Result<std::vector<TaskId>> FinishAttempt(TaskId id, int attempt, const AttemptOutcome& outcome,
                                            TaskState final_state, TaskReason reason,
                                            const StoredOutput* output = nullptr) override;
  Status RetryLater(TaskId id, int attempt, const AttemptOutcome& outcome, WallMs not_before,
                    int priority) override;
  Status AdvanceStage(TaskId id, int attempt, const AttemptOutcome& outcome) override;
  Result<std::vector<TaskId>> EndPending(TaskId id, TaskState final_state, TaskReason reason,
                                         WallMs now) override;
  Result<std::vector<TaskId>> EndPendingAll(const std::vector<TaskId>& ids, TaskState final_state,
                                            TaskReason reason, WallMs now) override;
  Result<bool> UpdatePending(TaskId id, const TaskChanges& changes, WallMs now) override;
  Result<std::vector<TaskId>> SetHeld(const std::vector<TaskId>& ids, bool hold,
                                      WallMs now) override;
  Result<bool> Requeue(TaskId id, WallMs now) override;
  Result<std::vector<TaskId>> RequeueAll(const std::vector<TaskId>& ids, WallMs now,
                                         bool skip_blocked, const std::map<TaskId, int>& restart_at,
                                         bool succeeded = false) override;
  Result<int> FailedSinceQueued(TaskId id) override;
  Result<std::vector<TaskId>> ExpirePendingTtl(WallMs now, int limit) override;
  Result<std::optional<WallMs>> NextPendingTtl() override;
  Result<std::vector<TaskId>> ExpireSucceeded(WallMs cutoff, int limit) override;
  Result<std::vector<TaskId>> PurgeEnded(WallMs cutoff, int limit) override;
  Result<RemovedTasks> RemoveFinished(const std::vector<TaskId>& ids) override;
  Result<std::optional<WallMs>> OldestSucceeded() override;
  Result<std::optional<WallMs>> OldestEnded() override;
  using Store::WriteTogether;
  Status WriteTogether(const std::function<Status()>& body, CommitSync sync) override;
  void AfterCommit(std::function<void()> effect) override;
  /// sql::Connection::RefuseCommits: tests of what a failed commit leaves.
  void RefuseCommits(std::function<Status()> refusal) { db_->RefuseCommits(std::move(refusal)); }
  Result<std::vector<std::string>> HoldQueues(const std::vector<std::string>& queues) override;
  Result<std::vector<QueueState>> QueueStates() override;
  Result<std::optional<QueueState>> QueueStateOf(const std::string& name) override;
  Result<int64_t> QueuesNamedFrom(const std::string& prefix) override;
  Result<std::vector<std::string>> ActiveQueuesOf(uint32_t owner_uid) override;
  Result<std::vector<QueueState>> ReadyQueues() override;
  Status SetQueuePaused(const std::string& queue, bool paused) override;
  Status SetQueueConcurrency(const std::string& queue, std::optional<int> concurrency) override;
  Status SetQueuePriorityMix(const std::string& queue, std::optional<PriorityMix> mix) override;
  Status AddQueue(const QueueState& queue) override;
  Result<std::vector<RunningAttempt>> RunningAttempts() override;
  Result<std::map<std::string, int>> RunningCounts() override;
  Result<std::vector<TaskCount>> TaskCounts() override;
  void ObserveCommits(std::function<void(double seconds)> observe) override {
    db_->ObserveCommits(std::move(observe));
  }
  void WaitWith(StoreWaiter waiter) override { db_->WaitWith(std::move(waiter)); }
  Result<std::map<uint32_t, int>> RunningByOwner() override;
  Result<RunningTally> Running() override;
  Result<int64_t> PendingOf(uint32_t owner_uid) override;
  Result<int64_t> OutputOf(uint32_t owner_uid) override;
  Status UnstartAttempt(TaskId id, int attempt,
                        WallMs not_before = 0) override;  // unstart.cc
  Result<std::vector<TaskId>> UnfinishedDeps(TaskId id) override;
  Status DeleteQueue(const std::string& queue) override;
  // Cron jobs: jobs.cc.
  Result<FireOutcome> Fire(const Firing& firing, const Owner& owner,
                           const std::optional<TaskSpec>& spec, WallMs now) override;
  Result<JobRuns> RunsOf(const std::string& job) override;
  Result<std::vector<JobRecord>> JobRecords() override;
  Status AddJobs(const std::vector<std::string>& jobs, WallMs now) override;
  Status ForgetJobs(const std::vector<std::string>& jobs) override;
  Status SetJobDisabled(const std::string& job, bool disabled) override;
  Status SetJobOverdueAlerted(const std::string& job, WallMs since) override;
  Result<std::vector<StoredJobFile>> JobFiles() override;
  Status SaveJobFiles(const std::vector<StoredJobFile>& files) override;
  Status ForgetJobFiles(const std::vector<std::string>& paths) override;
  // Hosts: hosts.cc.
  Status JoinHost(const std::string& host, const std::string& version, int max_running,
                  WallMs now) override;
  Result<std::optional<WallMs>> Heartbeat(int max_running, WallMs now) override;
  int64_t HostEpoch() const override { return epoch_; }
  Status ActForHost(const std::string& host, int64_t epoch) override;
  Status LeaveHost() override;
  Result<std::vector<HostRecord>> Hosts(WallMs now) override;
  Result<std::optional<std::vector<RunningAttempt>>> FenceHost(const std::string& host,
                                                               int64_t beats) override;
  Result<std::vector<std::pair<std::string, RunningAttempt>>> TakeFenced() override;
  Result<std::vector<TaskId>> EndContextLost(WallMs now) override;
  Result<std::vector<std::pair<TaskId, int>>> PassedOnAttempts() override;

  /// The hot queries whose plans must stay on their partial indexes.
  enum class PlannedQuery {
    kFirstReadyByPriority,
    kFirstReadyOldest,
    kReadyQueues,
    kReadyOwners,
    kPendingOfOwner,
    kPromoteDue,
    kNextDue,
    kKeyLookup,
    kPendingTtlDue,
    kNextPendingTtl,
    kSucceededDue,
    kOldestSucceeded,
    kEndedDue,
    kOldestEnded,
    kRunsOf,
    kJobRunning,
    kHoldRuns,
    kReleaseRuns,
    kPendingDependents,
    kFirstFittingByPriority,
    kFirstFittingOldest,
    kReadyUnitRequests,
    kHeldUnits,
    kReleaseDependents,
  };

 protected:
  /// A store over `db`, whose schema is current, with statements in `dialect`; call Prepare.
  SqlStore(std::unique_ptr<sql::Connection> db, sql::Dialect dialect);
  /// Prepares every statement (statements.cc); fails naming the first that does not.
  Status Prepare();
  /// The connection, for what one database adds.
  sql::Connection& db() { return *db_; }

 private:
  struct Statements;

  /// The job a task is a run of, and whether it is an exclusive run.
  struct JobRun {
    std::optional<std::string> job;
    bool exclusive = false;
    TaskId group = 0;  ///< its shard group (0: none): the group's shards never hold each other
  };

  /// Runs `body` inside one write transaction, rolling back when it or the commit fails.
  /// Inside WriteTogether, under a savepoint of its transaction instead.
  template <typename Body>
  Status Write(Body&& body) {
    if (together_) return WriteInShared(body);
    sql::Transaction tx(*db_);
    if (Status s = tx.Begin(); !s.ok()) return s;
    if (Status s = body(); !s.ok()) return s;  // tx rolls back
    return tx.Commit();
  }
  /// As Write, but inside WriteTogether on PostgreSQL without a savepoint of its own (two
  /// statements fewer), for a body that refuses (a status with no store fault) only while it
  /// has written nothing. A store fault in it gives the shared transaction up, as PostgreSQL
  /// does itself: WriteTogether rolls it back and fails with that fault, and the next ones take
  /// a savepoint for each write again (careful_) until none has failed for a while, so that a
  /// write that fails each time is undone alone.
  template <typename Body>
  Status WriteOrRefuse(Body&& body) {
    if (!together_ || dialect_ == sql::Dialect::kSqlite || careful_ > 0) return Write(body);
    if (!together_failed_.ok()) return together_failed_;
    if (!db_->InTransaction())
      return Status(ErrorCode::kInternal, "", "the shared transaction was rolled back");
    Status s = body();
    if (s.fault() != StoreFault::kNone) together_failed_ = s;
    return s;
  }
  /// WriteTogether's transaction: `body` and the commit, rolled back when either fails.
  Status TogetherCommitted(const std::function<Status()>& body, CommitSync sync);
  /// Write's body under a savepoint of WriteTogether's transaction.
  template <typename Body>
  Status WriteInShared(Body&& body) {
    if (!db_->InTransaction())  // the database gave it up (a full disk, an I/O error)
      return Status(ErrorCode::kInternal, "", "the shared transaction was rolled back");
    if (Status s = db_->Savepoint(); !s.ok()) return s;
    if (Status s = body(); !s.ok()) {
      if (s.fault() != StoreFault::kNone && careful_ > 0) careful_ = kCarefulTransactions;
      if (db_->InTransaction() && db_->RollbackToSavepoint().ok()) (void)db_->ReleaseSavepoint();
      return s;
    }
    return db_->ReleaseSavepoint();
  }

  // ---- inside a transaction (submit.cc) ----

  /// Checks that every id in `deps` is one of `owner`'s tasks; counts those not yet done and
  /// tells whether one failed or was cancelled.
  Status CheckDeps(const Owner& owner, const std::vector<TaskId>& deps, int* deps_left,
                   bool* dep_failed);
  /// Refuses `deps` for task `id` when one of them already waits, directly or not, for `id`.
  Status CheckNoCycle(TaskId id, const std::vector<TaskId>& deps);
  /// The envs key of the encoded environment `data`, stored once per distinct content.
  Result<std::string> StoreEnv(const std::string& data);
  /// Deletes the environment `key` when no task refers to it any more.
  Status DropEnvIfUnused(const std::string& key);
  /// Inserts task `id`'s labels and dependency edges.
  Status InsertRows(TaskId id, const TaskSpec& spec, const std::vector<TaskId>& deps);
  /// What the tasks of one batch share, stored once for the batch's transaction.
  struct BatchShared {
    std::map<std::string, std::string> env_keys;  ///< an environment's bytes: its key
    std::set<std::string> queues;                 ///< the queues made sure of
  };
  /// Inserts a new task; one whose dependency failed ends at once (its id joins `ended`).
  /// `new_queue`, when given, says whether the store made its queue for it. With `batch`, an
  /// environment or queue the batch's transaction already stored is not stored again.
  Result<TaskId> InsertInTx(const Owner& owner, const TaskSpec& spec, WallMs now,
                            std::vector<TaskId>* ended, bool* new_queue = nullptr,
                            BatchShared* batch = nullptr);
  /// Inserts `total` shards of `spec` as a new group (SubmitShards and a sharded firing); a run
  /// of a job makes the group the job's last task.
  Status InsertShardsInTx(const Owner& owner, const TaskSpec& spec, int total, WallMs now,
                          ShardedSubmit* out);
  /// Rewrites task `id`'s request (a keyed replace), dropping its attempts; `new_queue` as for
  /// InsertInTx.
  Status ReplaceInTx(TaskId id, const Owner& owner, const TaskSpec& spec, WallMs now,
                     std::vector<TaskId>* ended, bool* new_queue = nullptr);
  /// The whole of Submit, inside the caller's transaction.
  Status SubmitInTx(const Owner& owner, const TaskSpec& spec, WallMs now, bool supersede_running,
                    SubmitOutcome* out);
  /// One request of SubmitGroup under its own savepoint: a refusal undoes it alone and lands in
  /// `result`; an error is returned when the group's transaction can no longer be trusted (the
  /// database gave it up, or the savepoint failed), and then nothing of the group may be kept.
  Status SubmitInGroup(const SubmitItem& item, WallMs now, Result<SubmitOutcome>* result);

  // ---- inside a transaction (lifecycle.cc) ----

  /// Counts down the pending dependents of `id`, which succeeded at `now`; readies those free.
  Status ReleaseDependents(TaskId id, WallMs now);
  /// Fails, with reason dependency-failed at `now`, every pending task that waits directly or
  /// transitively for `id`; appends them to `ended` in breadth-first order.
  Status FailDependents(TaskId id, WallMs now, std::vector<TaskId>* ended);
  /// Deletes tasks `ids` (finished ones: no dependent waits for them) with their attempts,
  /// labels and edges, then the environments in `envs` no task uses any more and the queues
  /// they leave idle (retention.cc).
  Status DeleteTasksInTx(const std::vector<TaskId>& ids, std::vector<std::string> envs);
  /// Refuses to remove a task of `unmet` (failed or cancelled) that a task staying in the store
  /// waits for: with the edge gone, a retry of that dependent would run as if it had succeeded.
  Status RefuseLosingFailedDeps(const std::vector<std::pair<TaskId, TaskState>>& unmet,
                                const std::vector<TaskId>& removed);
  /// Ends pending task `id`; when it was pending appends it and the dependents this fails.
  Status EndPendingInTx(TaskId id, TaskState final_state, TaskReason reason, WallMs now,
                        std::vector<TaskId>* ended);
  /// Makes failed or cancelled task `id` (with `succeeded`, a succeeded or expired one too)
  /// pending again (Requeue), at stage `stage` when given; `requeued` tells whether it was.
  /// kInvalid (field "after") before any write when a dependency is failed or cancelled.
  Status RequeueInTx(TaskId id, WallMs now, std::optional<int> stage, bool succeeded,
                     bool* requeued);
  /// Closes running attempt `attempt` of task `id` and makes the task pending again, due at
  /// `not_before`: a retry at `retry_priority` when given, else its next stage (SPEC 13).
  Status ReopenAfter(TaskId id, int attempt, const AttemptOutcome& outcome, WallMs not_before,
                     std::optional<int> retry_priority);
  /// SaveOutput inside a transaction.
  Status SaveOutputInTx(TaskId id, int attempt, const StoredOutput& output);
  /// How a task ends with its attempt, and the output kept with it (none: nullptr).
  struct Ending {
    TaskState state;
    TaskReason reason;
    const StoredOutput* output;
  };
  /// Closes attempt `attempt` of running task `id` with `outcome`; kInvalid when the task is not
  /// running that attempt. Sets `run` to the job the task is a run of. Given `ending`
  /// (finish_attempt_and_task), the task ends so too, its output is kept, and if it succeeded
  /// its dependents wait for it no more.
  Status CloseAttempt(TaskId id, int attempt, const AttemptOutcome& outcome, JobRun* run,
                      std::optional<Ending> ending = std::nullopt);

  // ---- cron jobs, inside a transaction (jobs.cc) ----

  /// True when a run of `job` other than task `except` and the shards of `group` (0: none) is in
  /// flight (running, or pending part way through its stages and not held by the job).
  Result<bool> JobRunning(const std::string& job, TaskId except, TaskId group);
  /// Holds `job`'s row until the transaction ends, so that the hosts deciding whether its
  /// exclusive runs are held take turns (PostgreSQL; SQLite has one writer).
  Status LockJob(const std::string& job);
  /// Whether pending task `id` (0: not inserted yet), a run `run`, must be held: it is an
  /// exclusive run of a job and another run of its job is in flight.
  Result<bool> MustHold(const JobRun& run, TaskId id);
  /// A run of `job` (a shard of `group`, 0: none) started: its exclusive pending runs, other
  /// than that group's shards, are held.
  Status HoldRuns(const std::string& job, TaskId group);
  /// A run of `job` stopped running: when none is in flight any more, its held runs are released,
  /// ready when due at `now` and free of dependencies.
  Status ReleaseRuns(const std::string& job, WallMs now);
  /// Makes task `id` the latest task of `job` (if any), when the store knows the job.
  Status NoteJobTask(const std::optional<std::string>& job, TaskId id);
  /// A run of `job` (a shard of `group`, 0: none) succeeded at `now`: the job's last success,
  /// once every shard of its group has succeeded.
  Status NoteJobSuccess(const std::string& job, TaskId group, WallMs now);

  // ---- reads (sql_store.cc) ----

  /// Which of a task's attempts LoadLists reads.
  enum class AttemptsRead { kAll, kLast, kNone };
  /// Fills `task`'s stages and its attempts (`which` of them).
  Status LoadLists(Task& task, AttemptsRead which);
  // The task `stmt` (get_task or get_task_summary) reads for `id`, with its lists.
  Result<Task> GetWith(sql::Stmt& stmt, TaskId id);
  /// The List statement for the filters `filter` sets, with `states` (0 to 6) distinct states
  /// of its `states`, prepared on first use.
  Result<sql::Stmt*> ListStatement(const ListFilter& filter, size_t states);
  /// When an attempt started, and the units it holds.
  struct StartedAt {
    WallMs now;
    const UnitGrant* units;
  };
  /// Runs `stmt` (start_task, start_plain_task, or start_plain_with_attempt given `attempt`)
  /// for task `id`: the new attempt's number, with the job it is a run of in `run`; nullopt
  /// when it started nothing.
  Result<std::optional<int>> StartRow(sql::Stmt& stmt, TaskId id, JobRun* run,
                                      std::optional<StartedAt> attempt = std::nullopt);
  /// Inserts attempt `number` of task `id`, started now on the joined host.
  Status InsertAttempt(TaskId id, int number, WallMs now, const UnitGrant& units);
  /// StartAttempt of an exclusive run of a job, which another host's run may hold back: under a
  /// savepoint, undone then.
  Result<std::optional<int>> StartMayUndo(TaskId id, WallMs now, const UnitGrant& units);
  /// Ok while the joined host's epoch is current (or none was joined); else the error that it
  /// was fenced and starts nothing until it joins again.
  Status HostCurrent();
  /// The attempts the store holds as running on `host`.
  Result<std::vector<RunningAttempt>> RunningAttemptsOf(const std::string& host);
  /// Whether PrepareInsert stores anything now: on PostgreSQL, outside a transaction (SQLite
  /// has one writer, whose transactions hold nobody up apart from it).
  bool Preparing() const;
  /// PrepareInsert's queue `name`, committed on its own unless known to exist.
  void PrepareQueue(const std::string& name);
  /// After a submit, the queues and environments PrepareInsert made for it: when `refused`,
  /// those no task uses are dropped (once WriteTogether's transaction commits, inside one), so
  /// refused submits leave none behind; either way they are no longer tracked.
  void SettlePrepared(bool refused);
  /// Drops queues `queues` where idle and environments `envs` where unused.
  void DropPrepared(const std::vector<std::string>& queues, const std::vector<std::string>& envs);
  /// Inside a transaction: makes sure queue `name` exists and holds it against forgetting idle
  /// queues until the transaction ends; `*made` tells whether this made it (or PrepareQueue
  /// did, for it).
  Status HoldQueue(const std::string& name, bool* made);
  /// Runs a statement that yields one time, with `param` as $1 when given: nullopt when it
  /// yields NULL or no row.
  Result<std::optional<WallMs>> QueryMin(sql::Stmt& stmt,
                                         std::optional<int64_t> param = std::nullopt);

  std::unique_ptr<sql::Connection> db_;  // declared first: destroyed after the statements
  sql::Dialect dialect_;
  std::unique_ptr<Statements> st_;
  bool together_ = false;   ///< inside WriteTogether: each Write is a savepoint of its transaction
  Status together_failed_;  ///< the fault a WriteOrRefuse gave WriteTogether's transaction up for
  /// After a WriteOrRefuse failed: how many more WriteTogether transactions take a savepoint for
  /// each write (reset while one still fails).
  static constexpr int kCarefulTransactions = 20;
  int careful_ = 0;
  Outbox outbox_;     ///< the effects of WriteTogether's transaction (AfterCommit)
  std::string host_;  ///< the host it joined as ("" before JoinHost)
  /// Queues and environment keys PrepareInsert stored or found, as "queue/NAME" and "env/KEY"
  /// (forgotten all at once past kMaxKnownShared); a row forgotten since is stored again by the
  /// transaction that needs it.
  static constexpr size_t kMaxKnownShared = 4096;
  std::set<std::string> shared_known_;
  /// Made by PrepareQueue, not yet told by a HoldQueue (forgotten with shared_known_).
  std::set<std::string> queues_made_;
  /// The queues and environment keys PrepareInsert made since a submit last settled them.
  std::vector<std::string> prepared_queues_, prepared_envs_;
  int64_t epoch_ = 0;  ///< that host's epoch when it joined (0: joined none)
};

}  // namespace tq
