// The SQL of the SQL store, written once for both databases; where they differ the dialect
// (SqlStore::dialect) decides. SQLite plans without statistics, so its hot queries name their
// partial index (INDEXED BY) and CROSS JOIN fixes which table is walked first; if an index is
// missing or its condition no longer matches the query's literal terms, prepare fails loudly at
// open instead of the query silently scanning. PostgreSQL plans by statistics and takes no hints.
// Parameters are $1, $2, ...; integers are 64-bit everywhere.
#include "core/store/sql/statements.h"

#include <string>
#include <utility>

#include "core/store/sql/task_rows.h"

namespace tq {

namespace {

using sql::Dialect;

// The hint that makes SQLite walk `index` (nothing in PostgreSQL).
std::string Use(Dialect d, const char* index) {
  return d == Dialect::kSqlite ? std::string(" INDEXED BY ") + index : std::string();
}

// A join whose left side SQLite must walk first.
const char* LeftFirst(Dialect d) {
  return d == Dialect::kSqlite ? " CROSS JOIN " : " JOIN ";
}

// `uses` is not among the texts of list parameter $4 (Query::BindTextList). SQLite makes the
// list a set once per run, so each passed-over task costs a lookup, however long it is.
const char* UsesNotInList4(Dialect d) {
  return d == Dialect::kSqlite ? "uses NOT IN (SELECT value FROM json_each($4))"
                               : "uses <> ALL (CAST($4 AS text[]))";
}

// The ready tasks of queue $1, owner $2, placed on $3 (SPEC 12): one part of the ready index.
constexpr const char* kReadyPart =
    " WHERE ready = 1 AND queue = $1 AND owner_uid = $2 AND run_on = $3";

// PostgreSQL, whose hosts write side by side (SPEC 12): the rows read are locked as `clause`
// says until the transaction ends; SQLite has one writer at a time and needs no row locks.
std::string Locking(Dialect d, const char* clause) {
  return d == Dialect::kSqlite ? std::string() : std::string(" ") + clause;
}

// PostgreSQL's clock, in ms since the epoch, as the time of a heartbeat and of the hosts list:
// every host's silence is judged on this one clock (SPEC 12). SQLite's file is one machine's,
// whose clock tqd passes in.
constexpr const char* kServerNowMs =
    "CAST(extract(epoch FROM statement_timestamp()) * 1000 AS bigint)";

// "IN the ids of $1" (bound with BindTextList, each id as text).
// A queue row in use: with a setting of its own, made by tq queue add, or holding tasks.
std::string QueueInUse() {
  return "(paused <> 0 OR concurrency IS NOT NULL OR priority_mix IS NOT NULL OR added <> 0 OR "
         "name IN (SELECT queue FROM task_counts GROUP BY queue HAVING sum(n) <> 0))";
}

std::string InIdList(Dialect d) {
  return d == Dialect::kSqlite ? "IN (SELECT CAST(value AS INTEGER) FROM json_each($1))"
                               : "= ANY(CAST($1 AS bigint[]))";
}

// Starts a ready task (`also`: more conditions), only while the host's epoch is current ($2 and
// $3: the host and its epoch, 0 for none joined), returning `returning` of its row.
std::string StartTaskSql(const char* also,
                         const char* returning = "attempt_count, job, shard_group, job_exclusive") {
  return std::string(
             "UPDATE tasks SET state = 'running', ready = 0, expires_at = NULL, "
             "attempt_count = attempt_count + 1 WHERE id = $1 AND ready = 1 AND state = "
             "'pending' ") +
         also +
         "AND ($3 = 0 OR EXISTS (SELECT 1 FROM hosts WHERE name = $2 AND epoch = $3)) "
         "RETURNING " +
         returning;
}

// Closes attempt $2 of task $1 while its task runs it, held by host $15 at epoch $16.
std::string FinishAttemptSql() {
  return "UPDATE attempts SET ended = $3, exit_code = $4, signal = $5, reason = $6, "
         "user_cpu_us = $7, system_cpu_us = $8, max_rss_kb = $9, "
         "pid = CASE WHEN $10 > 0 THEN $10 ELSE pid END, "
         "detail = CASE WHEN $18 = 1 THEN $11 ELSE detail END, output_bytes = $12,  "
         "memory_peak_bytes = $13, "
         "shim_pid = CASE WHEN $14 > 0 THEN $14 ELSE shim_pid END, output_cut = $17 "
         "WHERE task_id = $1 AND number = $2 AND holder = $15 AND fence = $16 "
         "AND EXISTS (SELECT 1 FROM tasks WHERE id = $1 AND state = 'running' AND "
         "attempt_count = $2)";
}

// PostgreSQL: start_plain_task (its RETURNING list, with the stage) and insert_attempt in one
// statement, one round trip fewer for each start ($4: when it started, $5: its units).
std::string StartWithAttemptSql() {
  return "WITH s AS (" + StartTaskSql("AND job_exclusive = 0 ") +
         ", stage), a AS (INSERT INTO attempts(task_id, number, started, units, stage, host, "
         "holder, fence) SELECT $1, attempt_count, $4, CAST($5 AS text), stage, $2, $2, $3 "
         "FROM s) SELECT attempt_count, job, shard_group, job_exclusive FROM s";
}

// PostgreSQL: start_plain_with_attempt returning the task as TaskSelect reads it once started,
// then (as start_plain_with_attempt returns them) its attempt_count, the new attempt's number,
// its job and shard group: a claim's start and read in one round trip.
std::string StartAndReadSql() {
  std::string read = sql::TaskSelect(Dialect::kPostgres, true);
  const std::string from = "FROM tasks AS t ";
  read.replace(read.find(from), from.size(),
               ", t.attempt_count, t.job, t.shard_group FROM s AS t ");
  return "WITH s AS (" + StartTaskSql("AND job_exclusive = 0 ", "*") +
         "), a AS (INSERT INTO attempts(task_id, number, started, units, stage, host, holder, "
         "fence) SELECT $1, attempt_count, $4, CAST($5 AS text), stage, $2, $2, $3 FROM s) " +
         read + "JOIN envs AS e ON e.hash = t.env_hash";
}

// PostgreSQL: the task read is held until the transaction ends, and a task another host's claim
// holds is passed over (a claim of a turn of dispatch); SQLite has one writer at a time.
std::string SkipClaimed(Dialect d) {
  return Locking(d, "FOR UPDATE SKIP LOCKED");
}

// What a probe of the ready set reads of its task (Candidate): what a claim decides before it
// starts the task, without reading the whole task first.
constexpr const char* kCandidateColumns = "id, priority, owner_name, uses, shard_group, run_on";

std::string FirstReadyByPrioritySql(Dialect d) {
  return std::string("SELECT ") + kCandidateColumns + " FROM tasks" +
         Use(d, "tasks_ready_by_priority") + kReadyPart + " ORDER BY priority, id LIMIT 1" +
         SkipClaimed(d);
}
std::string FirstReadyOldestSql(Dialect d) {
  return std::string("SELECT ") + kCandidateColumns + " FROM tasks" + Use(d, "tasks_ready_by_id") +
         kReadyPart + " ORDER BY id LIMIT 1" + SkipClaimed(d);
}
// The same, passing over the tasks whose request (`uses`) is in $4, the requests whose units are
// not free now (SPEC 14).
std::string FirstFittingByPrioritySql(Dialect d) {
  return std::string("SELECT ") + kCandidateColumns + " FROM tasks" +
         Use(d, "tasks_ready_by_priority") + kReadyPart + " AND (uses IS NULL OR " +
         UsesNotInList4(d) + ") ORDER BY priority, id LIMIT 1" + SkipClaimed(d);
}
std::string FirstFittingOldestSql(Dialect d) {
  return std::string("SELECT ") + kCandidateColumns + " FROM tasks" + Use(d, "tasks_ready_by_id") +
         kReadyPart + " AND (uses IS NULL OR " + UsesNotInList4(d) + ") ORDER BY id LIMIT 1" +
         SkipClaimed(d);
}
// As `single` (one of the four above: the tasks placed on host $3), for the tasks placed on no
// host and on $3 together in one round trip: each part's first, then the first of the two by
// `order`. Both rows are locked, as two statements would lock them.
std::string BothPlacesSql(const std::string& single, const char* order) {
  std::string unplaced = single;
  const std::string placed_here = "run_on = $3";
  unplaced.replace(unplaced.find(placed_here), placed_here.size(), "run_on = ''");
  return std::string("SELECT ") + kCandidateColumns + " FROM (" + unplaced +
         ") AS unplaced UNION ALL SELECT " + kCandidateColumns + " FROM (" + single +
         ") AS placed ORDER BY " + order + " LIMIT 1";
}

// Each step finds the next request after the last one among the ready tasks that ask for units:
// the cost grows with the different requests, never with their tasks. (ORDER BY ... LIMIT 1
// rather than min() here and in the oldest-first reads below: PostgreSQL keeps the plan it made
// for a statement without parameters, often on an empty store, and only this form is sure to
// read the index that holds the answer first.)
std::string ReadyUsesSql(Dialect d) {
  const std::string from = " FROM tasks" + Use(d, "tasks_ready_uses");
  return "WITH RECURSIVE u(uses) AS (SELECT (SELECT uses" + from +
         " WHERE ready = 1 AND uses IS NOT NULL ORDER BY uses LIMIT 1) UNION ALL SELECT (SELECT "
         "uses" +
         from +
         " WHERE ready = 1 AND uses IS NOT NULL AND uses > u.uses ORDER BY uses LIMIT 1) FROM u "
         "WHERE u.uses IS NOT NULL) SELECT uses FROM u WHERE uses IS NOT NULL";
}
// The units the running attempts of host $1 hold (units are each host's own): O(running
// attempts).
std::string HeldUnitsSql(Dialect d) {
  return "SELECT t.id, t.owner_uid, a.units FROM tasks AS t" + Use(d, "tasks_by_state") +
         LeftFirst(d) +
         "attempts AS a ON a.task_id = t.id AND a.number = t.attempt_count "
         "WHERE t.state = 'running' AND a.units IS NOT NULL AND a.host = $1 ORDER BY t.id";
}
// Each step finds the next owner after the last one in the queue's part of the ready index: the
// cost grows with the owners that have ready tasks there, never with their tasks.
std::string ReadyOwnersSql(Dialect d) {
  const std::string from = " FROM tasks" + Use(d, "tasks_ready_by_id");
  return "WITH RECURSIVE o(uid) AS (SELECT (SELECT owner_uid" + from +
         " WHERE ready = 1 AND queue = $1 ORDER BY owner_uid LIMIT 1) UNION ALL SELECT (SELECT "
         "owner_uid" +
         from +
         " WHERE ready = 1 AND queue = $1 AND owner_uid > o.uid ORDER BY owner_uid LIMIT 1) FROM o "
         "WHERE o.uid IS NOT NULL) SELECT uid FROM o WHERE uid IS NOT NULL";
}
// The tasks waiting for task $1 (ended at `now`, a parameter) wait for one dependency fewer. On
// PostgreSQL the dependents are read first (an array), and the state is tested where no index
// can serve it: the plan walks the primary key for those few, never the pending tasks, whatever
// the server's estimates (a new store has none).
std::string ReleaseDependentsSql(Dialect d, const std::string& now) {
  const std::string set =
      "UPDATE tasks SET deps_left = deps_left - 1, ready = CASE WHEN deps_left = 1 AND held = 0 "
      "AND not_before <= " +
      now + " THEN 1 ELSE ready END WHERE ";
  return d == Dialect::kSqlite
             ? set +
                   "state = 'pending' AND deps_left > 0 AND id IN (SELECT task_id FROM "
                   "task_deps WHERE dep_id = $1)"
             : set +
                   "id = ANY(ARRAY(SELECT task_id FROM task_deps WHERE dep_id = $1)) AND "
                   "(state = 'pending' AND deps_left > 0) IS TRUE";
}

// PostgreSQL: finish_attempt, finish_task ($19: the state, $20: the reason), save_output when
// $21 is 1 ($22 to $24: stdout, stderr, their order) and, for a task that succeeded,
// release_dependents in one statement, one round trip instead of four.
std::string FinishAttemptAndTaskSql() {
  return "WITH a AS (" + FinishAttemptSql() +
         " RETURNING task_id, number), o AS (INSERT INTO attempt_output(task_id, number, stdout, "
         "stderr, output_order) SELECT task_id, number, CAST($22 AS bytea), CAST($23 AS bytea), "
         "CAST($24 AS bytea) FROM a WHERE $21 = 1 ON CONFLICT (task_id, number) DO UPDATE SET "
         "stdout = excluded.stdout, stderr = excluded.stderr, output_order = "
         "excluded.output_order), t AS (UPDATE tasks SET state = CAST($19 AS text), reason = $20, "
         "exit_code = $4, signal = $5, finished = $3, ready = 0, held = 0 "
         "WHERE id = $1 AND EXISTS (SELECT 1 FROM a) RETURNING job, job_exclusive, shard_group), "
         "d AS (" +
         ReleaseDependentsSql(Dialect::kPostgres, "$3") +
         " AND CAST($19 AS text) = 'succeeded' AND EXISTS (SELECT 1 FROM t)) "
         "SELECT job, job_exclusive, shard_group FROM t";
}
std::string PendingOfOwnerSql(Dialect d) {
  return "SELECT count(*) FROM tasks" + Use(d, "tasks_pending_by_owner") +
         " WHERE state = 'pending' AND owner_uid = $1";
}
// Each step finds the next queue name after the last one in the ready index: the cost grows with
// the queues that hold ready tasks, never with the idle ones. (ORDER BY ... LIMIT 1 rather than
// min(): PostgreSQL has no min() of bytes.)
std::string ReadyQueuesSql(Dialect d) {
  const std::string from = " FROM tasks" + Use(d, "tasks_ready_by_id");
  return "WITH RECURSIVE ready(name) AS (SELECT (SELECT queue" + from +
         " WHERE ready = 1 ORDER BY queue LIMIT 1) UNION ALL SELECT (SELECT queue" + from +
         " WHERE ready = 1 AND queue > ready.name ORDER BY queue LIMIT 1) FROM ready "
         "WHERE ready.name IS NOT NULL) "
         "SELECT r.name, coalesce(q.paused, 0), q.concurrency, q.priority_mix, "
         "coalesce(q.added, 0) FROM ready AS r LEFT JOIN queues AS q ON q.name = r.name "
         "WHERE r.name IS NOT NULL" +
         // SQLite's join keeps the recursion's order (by name); PostgreSQL's may not.
         (d == Dialect::kPostgres ? " ORDER BY r.name" : "");
}
std::string PromoteDueSql(Dialect d) {
  return "UPDATE tasks SET ready = 1 WHERE id IN (SELECT id FROM tasks" + Use(d, "tasks_delayed") +
         " WHERE state = 'pending' AND ready = 0 AND deps_left = 0 AND held = 0 AND "
         "not_before <= $1 ORDER BY not_before LIMIT $2" +
         SkipClaimed(d) + ")";
}
// The next due time after $1 (once promote_due made the tasks due by $1 ready).
std::string NextDueAfterSql(Dialect d) {
  return "SELECT not_before FROM tasks" + Use(d, "tasks_delayed") +
         " WHERE state = 'pending' AND ready = 0 AND deps_left = 0 AND held = 0 AND "
         "not_before > $1 ORDER BY not_before LIMIT 1";
}
// PostgreSQL: promote_due, then how many it made ready and NextDueAfterSql, in one statement.
std::string PromoteDueAndNextSql() {
  return "WITH p AS (" + PromoteDueSql(Dialect::kPostgres) +
         " RETURNING 1) SELECT (SELECT count(*) FROM p), (" + NextDueAfterSql(Dialect::kPostgres) +
         ")";
}
std::string NextDueSql(Dialect d) {
  return "SELECT min(not_before) FROM tasks" + Use(d, "tasks_delayed") +
         " WHERE state = 'pending' AND ready = 0 AND deps_left = 0 AND held = 0";
}
std::string KeyLookupSql(Dialect d) {
  return "SELECT id, version, state FROM tasks" + Use(d, "tasks_by_key") +
         " WHERE owner_uid = $1 AND task_key = $2";
}
std::string PendingTtlDueSql(Dialect d) {
  return "SELECT id FROM tasks" + Use(d, "tasks_pending_ttl") +
         " WHERE state = 'pending' AND expires_at IS NOT NULL AND expires_at <= $1 "
         "ORDER BY expires_at, id LIMIT $2" +
         SkipClaimed(d);
}
std::string NextPendingTtlSql(Dialect d) {
  return "SELECT (SELECT expires_at FROM tasks" + Use(d, "tasks_pending_ttl") +
         " WHERE state = 'pending' AND expires_at IS NOT NULL ORDER BY expires_at LIMIT 1)";
}
std::string SucceededDueSql(Dialect d) {
  return "SELECT id FROM tasks" + Use(d, "tasks_succeeded") +
         " WHERE state = 'succeeded' AND finished <= $1 ORDER BY finished, id LIMIT $2" +
         SkipClaimed(d);
}
std::string OldestSucceededSql(Dialect d) {
  return "SELECT (SELECT finished FROM tasks" + Use(d, "tasks_succeeded") +
         " WHERE state = 'succeeded' ORDER BY finished LIMIT 1)";
}
// The edges of the one task are the outer loop: joined the other way, SQLite walks every pending
// task (tasks_by_state) for each task that fails or is cancelled.
std::string PendingDependentsSql(Dialect d) {
  return "SELECT t.id FROM task_deps AS d" + Use(d, "task_deps_by_dep") + LeftFirst(d) +
         "tasks AS t ON t.id = d.task_id WHERE d.dep_id = $1 AND t.state = 'pending'";
}
std::string EndedDueSql(Dialect d) {
  return "SELECT id, env_hash FROM tasks" + Use(d, "tasks_ended") +
         " WHERE state IN ('failed', 'cancelled', 'expired') AND finished <= $1 "
         "ORDER BY finished, id LIMIT $2" +
         SkipClaimed(d);
}
std::string OldestEndedSql(Dialect d) {
  return "SELECT (SELECT finished FROM tasks" + Use(d, "tasks_ended") +
         " WHERE state IN ('failed', 'cancelled', 'expired') ORDER BY finished LIMIT 1)";
}
// A job's runs: each repeats the index's condition, so tasks_job_runs applies. A pending task's
// run is in flight once it has begun: at a later stage, or a shard whose group has a shard that
// started. The shards of one group are one run: they never hold each other ($3 of job_running,
// $2 of hold_runs: the group, 0 for none).
#define TQ_PENDING_IN_FLIGHT                                                 \
  "held <> 1 AND (stage > 0 OR (shard_group IS NOT NULL AND EXISTS (SELECT " \
  "1 FROM tasks AS s WHERE s.shard_group = tasks.shard_group AND s.state <> 'pending')))"
std::string RunsOfSql(Dialect d) {
  return "SELECT id, state, " TQ_PENDING_IN_FLIGHT ", shard_group FROM tasks" +
         Use(d, "tasks_job_runs") +
         " WHERE job = $1 AND state IN ('pending', 'running') ORDER BY state, id";
}
std::string JobRunningSql(Dialect d) {
  return "SELECT 1 FROM tasks" + Use(d, "tasks_job_runs") +
         " WHERE job = $1 AND state IN ('pending', 'running') AND id <> $2 "
         "AND (shard_group IS NULL OR shard_group <> $3) "
         "AND (state = 'running' OR (" TQ_PENDING_IN_FLIGHT ")) LIMIT 1";
}
#undef TQ_PENDING_IN_FLIGHT
std::string HoldRunsSql(Dialect d) {
  const char* runs =
      " WHERE job = $1 AND state IN ('pending', 'running') AND state = 'pending' AND "
      "job_exclusive = 1 AND held <> 2 AND (shard_group IS NULL OR shard_group <> $2)";
  if (d == Dialect::kSqlite)
    return "UPDATE tasks" + Use(d, "tasks_job_runs") + " SET ready = 0, held = 1" + runs;
  // A run another host's claim is starting is passed over: that claim checks again, under the
  // job's row, whether another run is in flight (StartAttempt).
  return std::string("UPDATE tasks SET ready = 0, held = 1 WHERE id IN (SELECT id FROM tasks") +
         runs + SkipClaimed(d) + ")";
}
std::string ReleaseRunsSql(Dialect d) {
  return "UPDATE tasks" + Use(d, "tasks_job_runs") +
         " SET held = 0, ready = CASE WHEN deps_left = 0 AND not_before <= $2 THEN 1 ELSE 0 END "
         "WHERE job = $1 AND state IN ('pending', 'running') AND state = 'pending' AND held = 1";
}
// tq update: a set parameter replaces the column; a new start time decides `ready` again.
constexpr const char* kUpdateTaskSql =
    "UPDATE tasks SET priority = coalesce($2, priority), base_priority = coalesce($2, "
    "base_priority), queue = coalesce($3, queue), not_before = coalesce($4, not_before), "
    "timeout_ms = coalesce($5, timeout_ms), retries = coalesce($6, retries), "
    "ready = CASE WHEN deps_left = 0 AND held = 0 AND coalesce($4, not_before) <= $7 THEN 1 "
    "ELSE 0 END WHERE id = $1 AND state = 'pending'";

std::string InsertTaskSql() {
  const int n = sql::RequestColumnCount();
  auto p = [n](int i) { return "$" + std::to_string(n + i); };
  return "INSERT INTO tasks(" + sql::RequestColumns() +
         ", owner_uid, owner_gid, owner_name, created, expires_at, ready, deps_left, held, state) "
         "VALUES (" +
         sql::RequestParams() + ", " + p(1) + ", " + p(2) + ", " + p(3) + ", " + p(4) + ", " +
         p(5) + ", " + p(6) + ", " + p(7) + ", " + p(8) + ", 'pending') RETURNING id";
}

// A keyed replace: a fresh request in the same row, pending with no attempts.
std::string ReplaceTaskSql() {
  const int n = sql::RequestColumnCount();
  auto p = [n](int i) { return "$" + std::to_string(n + i); };
  return "UPDATE tasks SET (" + sql::RequestColumns() + ") = (" + sql::RequestParams() +
         "), created = " + p(1) + ", expires_at = " + p(2) + ", ready = " + p(3) +
         ", deps_left = " + p(4) + ", held = " + p(6) +
         ", state = 'pending', reason = '', attempt_count = 0, queued_attempts = 0, stage = 0, "
         "exit_code = -1, signal = 0, finished = 0 WHERE id = " +
         p(5);
}

}  // namespace

std::string PlannedSql(sql::Dialect d, SqlStore::PlannedQuery query) {
  using Q = SqlStore::PlannedQuery;
  switch (query) {
    case Q::kFirstReadyByPriority:
      return FirstReadyByPrioritySql(d);
    case Q::kFirstReadyOldest:
      return FirstReadyOldestSql(d);
    case Q::kReadyQueues:
      return ReadyQueuesSql(d);
    case Q::kReadyOwners:
      return ReadyOwnersSql(d);
    case Q::kPendingOfOwner:
      return PendingOfOwnerSql(d);
    case Q::kPromoteDue:
      return PromoteDueSql(d);
    case Q::kNextDue:
      return NextDueSql(d);
    case Q::kKeyLookup:
      return KeyLookupSql(d);
    case Q::kPendingTtlDue:
      return PendingTtlDueSql(d);
    case Q::kNextPendingTtl:
      return NextPendingTtlSql(d);
    case Q::kSucceededDue:
      return SucceededDueSql(d);
    case Q::kOldestSucceeded:
      return OldestSucceededSql(d);
    case Q::kEndedDue:
      return EndedDueSql(d);
    case Q::kOldestEnded:
      return OldestEndedSql(d);
    case Q::kRunsOf:
      return RunsOfSql(d);
    case Q::kJobRunning:
      return JobRunningSql(d);
    case Q::kHoldRuns:
      return HoldRunsSql(d);
    case Q::kReleaseRuns:
      return ReleaseRunsSql(d);
    case Q::kPendingDependents:
      return PendingDependentsSql(d);
    case Q::kFirstFittingByPriority:
      return FirstFittingByPrioritySql(d);
    case Q::kFirstFittingOldest:
      return FirstFittingOldestSql(d);
    case Q::kReadyUnitRequests:
      return ReadyUsesSql(d);
    case Q::kHeldUnits:
      return HeldUnitsSql(d);
    case Q::kReleaseDependents:
      return ReleaseDependentsSql(d, "$2");
  }
  return NextDueSql(d);
}

Status SqlStore::Prepare() {
  using S = Statements;
  const Dialect d = dialect_;
  using sql::StageSelect;
  using sql::TaskSelect;
  const struct {
    sql::Stmt S::*stmt;
    const char* what;
    std::string sql;
  } kTable[] = {
      // submit
      // A dependency read by a submit is held until it commits: a dependency that ends
      // meanwhile releases (or fails) the new task once it can see it (issue 50).
      {&S::dep_owner_state, "read dependency",
       "SELECT owner_uid, state FROM tasks WHERE id = $1" + Locking(d, "FOR SHARE")},
      {&S::deps_of, "read dependencies", "SELECT dep_id FROM task_deps WHERE task_id = $1"},
      // An environment a submit reuses is held until it commits, and a purge passes over an
      // environment held so: it is never dropped under a new task (issue 50).
      {&S::env_by_hash, "read env",
       "SELECT data FROM envs WHERE hash = $1" + Locking(d, "FOR KEY SHARE")},
      {&S::insert_env, "insert env",
       "INSERT INTO envs(hash, data) VALUES ($1, $2) ON CONFLICT DO NOTHING"},
      {&S::drop_env_if_unused, "drop env",
       "DELETE FROM envs WHERE hash IN (SELECT hash FROM envs WHERE hash = $1 AND NOT EXISTS "
       "(SELECT 1 FROM tasks" +
           Use(d, "tasks_by_env") + " WHERE env_hash = $1)" + Locking(d, "FOR UPDATE SKIP LOCKED") +
           ")"},
      // The same for a queue that a submit adds a task to, against forgetting idle queues.
      {&S::insert_queue, "insert queue",
       d == Dialect::kSqlite
           ? "INSERT INTO queues(name) VALUES ($1) ON CONFLICT DO NOTHING"
           : "WITH found AS (SELECT name FROM queues WHERE name = $1 FOR KEY SHARE) "
             "INSERT INTO queues(name) SELECT $1 WHERE NOT EXISTS (SELECT 1 FROM found) "
             "ON CONFLICT DO NOTHING"},
      // Racing submits of one key take turns (only PostgreSQL's: SQLite has one writer).
      {&S::lock_key, "hold a key",
       d == Dialect::kSqlite
           ? ""
           : "SELECT pg_advisory_xact_lock(29812, hashtext(current_schema() || '/' || $1 || '/' "
             "|| encode($2, 'hex')))"},
      {&S::insert_task, "insert task", InsertTaskSql()},
      {&S::insert_label, "insert label",
       "INSERT INTO task_labels(task_id, pos, label) VALUES ($1, $2, $3)"},
      {&S::insert_dep, "insert dependency",
       "INSERT INTO task_deps(task_id, dep_id) VALUES ($1, $2)"},
      {&S::key_lookup, "read keyed tasks", KeyLookupSql(d)},
      {&S::task_env_hash, "read task", "SELECT env_hash, state, held FROM tasks WHERE id = $1"},
      {&S::replace_task, "replace task", ReplaceTaskSql()},
      {&S::delete_attempts, "drop attempts", "DELETE FROM attempts WHERE task_id = $1"},
      {&S::delete_labels, "drop labels", "DELETE FROM task_labels WHERE task_id = $1"},
      {&S::delete_deps, "drop dependencies", "DELETE FROM task_deps WHERE task_id = $1"},
      {&S::insert_stage, "insert stage",
       "INSERT INTO task_stages(task_id, pos, name, argv, shell, timeout_ms, retries, backoff, "
       "backoff_base_ms, backoff_max_ms, jitter, retry_on_exit, no_retry_on_exit) "
       "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"},
      {&S::delete_stages, "drop stages", "DELETE FROM task_stages WHERE task_id = $1"},
      // A group's id is the next id of the tasks' sequence, taken so that no task gets it.
      {&S::next_task_id, "take an id for a group",
       d == Dialect::kSqlite
           ? "UPDATE sqlite_sequence SET seq = seq + 1 WHERE name = 'tasks' RETURNING seq"
           : "SELECT nextval('tasks_id_seq')"},
      {&S::first_task_id, "take an id for a group",  // PostgreSQL's sequence always answers
       d == Dialect::kSqlite
           ? "INSERT INTO sqlite_sequence(name, seq) VALUES ('tasks', 1) RETURNING seq"
           : "SELECT nextval('tasks_id_seq')"},
      {&S::shards_of, "list a group's shards",
       "SELECT t.id, t.state, a.host FROM tasks AS t" + Use(d, "tasks_shard_group") +
           " LEFT JOIN attempts AS a ON a.task_id = t.id AND a.number = t.attempt_count AND "
           "a.ended = 0 WHERE t.shard_group = $1 ORDER BY t.shard_index"},
      // The group's first shard, its shards not ended, their latest end, and the end last told.
      {&S::group_end, "claim a group's end",
       "SELECT f.id, f.group_told, (SELECT count(*) FROM tasks" + Use(d, "tasks_shard_group") +
           " WHERE shard_group = $1 AND state NOT IN ('succeeded', 'failed', 'cancelled', "
           "'expired')), (SELECT max(finished) FROM tasks" +
           Use(d, "tasks_shard_group") +
           " WHERE shard_group = $1) FROM tasks AS f WHERE f.id = (SELECT min(id) FROM tasks" +
           Use(d, "tasks_shard_group") + " WHERE shard_group = $1)"},
      {&S::claim_group_end, "claim a group's end",
       "UPDATE tasks SET group_told = $2 WHERE id = $1 AND group_told <> $2"},
      {&S::reblock_dependents, "hold dependents",
       "UPDATE tasks SET deps_left = deps_left + 1, ready = 0 WHERE state = 'pending' "
       "AND id IN (SELECT task_id FROM task_deps WHERE dep_id = $1)"},
      // reads
      {&S::get_task, "get task",
       TaskSelect(d, true) + "JOIN envs AS e ON e.hash = t.env_hash WHERE t.id = $1"},
      {&S::get_task_summary, "get task", TaskSelect(d, false) + "WHERE t.id = $1"},
      {&S::get_summaries, "get tasks",
       TaskSelect(d, false) + "WHERE t.id " + InIdList(d) + " ORDER BY t.id"},
      {&S::attempts_of_tasks, "read attempts", sql::AttemptsOfTasksSelect(InIdList(d))},
      {&S::task_stages, "read stages", StageSelect()},
      {&S::task_attempts, "read attempts", sql::AttemptSelect()},
      {&S::last_attempt, "read attempts", sql::AttemptSelect(true)},
      {&S::hold_queues, "hold queues for a claim",
       d == Dialect::kSqlite
           ? "SELECT name FROM queues WHERE name IN (SELECT value FROM json_each($1))"
           // A queue another host's claim holds is passed over until a later turn. Submits to
           // it, which hold it FOR KEY SHARE, never wait for a claim's hold (nor one for them).
           : "SELECT name FROM queues WHERE name IN (SELECT convert_to(n, 'UTF8') FROM "
             "unnest(CAST($1 AS text[])) AS n) ORDER BY name FOR NO KEY UPDATE SKIP LOCKED"},
      {&S::add_queues, "hold queues for a claim",  // only PostgreSQL's
       d == Dialect::kSqlite ? ""
                             : "INSERT INTO queues(name) SELECT convert_to(n, 'UTF8') FROM "
                               "unnest(CAST($1 AS text[])) AS n ON CONFLICT DO NOTHING"},
      {&S::ended_among, "read which tasks ended",
       "SELECT id FROM tasks WHERE id " + InIdList(d) +
           " AND state IN ('succeeded', 'failed', 'cancelled', 'expired') ORDER BY id"},
      // A queue row without settings or tasks (one PrepareInsert made for a submit that was then
      // refused, or not yet committed) is as good as none: it is not shown, and goes with the
      // idle queues.
      {&S::queue_states, "list queues",
       "SELECT name, paused, concurrency, priority_mix, added FROM queues WHERE " + QueueInUse() +
           " ORDER BY name"},
      {&S::set_queue_paused, "pause queue",
       "INSERT INTO queues(name, paused) VALUES ($1, $2) "
       "ON CONFLICT(name) DO UPDATE SET paused = excluded.paused"},
      {&S::set_queue_concurrency, "set queue concurrency",
       "INSERT INTO queues(name, concurrency) VALUES ($1, $2) "
       "ON CONFLICT(name) DO UPDATE SET concurrency = excluded.concurrency"},
      {&S::set_queue_priority_mix, "set queue priority mix",
       "INSERT INTO queues(name, priority_mix) VALUES ($1, $2) "
       "ON CONFLICT(name) DO UPDATE SET priority_mix = excluded.priority_mix"},
      {&S::queue_exists, "read queue", "SELECT 1 FROM queues WHERE name = $1 AND " + QueueInUse()},
      {&S::queue_state, "read queue settings",
       "SELECT name, paused, concurrency, priority_mix, added FROM queues WHERE name = $1 AND " +
           QueueInUse()},
      // Compared as they are stored (PostgreSQL keeps names as bytes): a range of names would
      // follow a collation.
      {&S::queues_named_from, "count queues by prefix",
       d == Dialect::kPostgres
           ? "SELECT count(*) FROM queues WHERE " + QueueInUse() +
                 " AND substring(name FROM 1 FOR length(CAST($1 AS bytea))) = CAST($1 AS bytea)"
           : "SELECT count(*) FROM queues WHERE " + QueueInUse() +
                 " AND substr(name, 1, length(CAST($1 AS text))) = CAST($1 AS text)"},
      {&S::add_queue, "add queue",
       "INSERT INTO queues(name, paused, concurrency, priority_mix, added) "
       "VALUES ($1, $2, $3, $4, $5) ON CONFLICT(name) DO UPDATE SET paused = excluded.paused, "
       "concurrency = excluded.concurrency, priority_mix = excluded.priority_mix, "
       "added = excluded.added"},
      {&S::running_attempts, "list running attempts",
       "SELECT a.task_id, a.number, coalesce(s.timeout_ms, t.timeout_ms), a.started, "
       "a.stop_reason, a.stop_task_reason, a.stop_requested, t.keep_background, a.host "
       "FROM tasks AS t "
       "JOIN attempts AS a ON a.task_id = t.id AND a.number = t.attempt_count "
       "LEFT JOIN task_stages AS s ON s.task_id = t.id AND s.pos = t.stage "
       "WHERE t.state = 'running' AND a.holder = $1 ORDER BY t.id"},
      {&S::running_counts, "count running attempts",
       "SELECT queue, count(*) FROM tasks WHERE state = 'running' GROUP BY queue"},
      {&S::task_counts, "count tasks per queue and state",
       // A count may have a row per host that wrote (PostgreSQL's schema v6): their sum.
       "SELECT queue, state, CAST(sum(n) AS BIGINT) FROM task_counts GROUP BY queue, state "
       "HAVING sum(n) <> 0 ORDER BY queue, state"},
      {&S::running_tally, "count running attempts",
       "SELECT queue, owner_uid, count(*) FROM tasks WHERE state = 'running' "
       "GROUP BY queue, owner_uid"},
      {&S::running_by_owner, "count running attempts per user",
       "SELECT owner_uid, count(*) FROM tasks WHERE state = 'running' GROUP BY owner_uid"},
      {&S::pending_of_owner, "count a user's pending tasks", PendingOfOwnerSql(d)},
      {&S::output_of_owner, "read a user's kept output",
       "SELECT CAST(coalesce(sum(bytes), 0) AS BIGINT) FROM owner_output WHERE owner_uid = $1"},
      // the ready set and attempts
      {&S::first_ready_priority, "first ready task", FirstReadyByPrioritySql(d)},
      {&S::first_ready_oldest, "first ready task", FirstReadyOldestSql(d)},
      {&S::ready_queues, "list queues with ready tasks", ReadyQueuesSql(d)},
      {&S::ready_owners, "list users with ready tasks", ReadyOwnersSql(d)},
      {&S::first_fitting_priority, "first ready task with free units",
       FirstFittingByPrioritySql(d)},
      {&S::first_fitting_oldest, "first ready task with free units", FirstFittingOldestSql(d)},
      {&S::first_ready_priority_both, "first ready task",
       BothPlacesSql(FirstReadyByPrioritySql(d), "priority, id")},
      {&S::first_ready_oldest_both, "first ready task",
       BothPlacesSql(FirstReadyOldestSql(d), "id")},
      {&S::first_fitting_priority_both, "first ready task with free units",
       BothPlacesSql(FirstFittingByPrioritySql(d), "priority, id")},
      {&S::first_fitting_oldest_both, "first ready task with free units",
       BothPlacesSql(FirstFittingOldestSql(d), "id")},
      {&S::ready_uses, "list the unit requests of ready tasks", ReadyUsesSql(d)},
      {&S::held_units, "list the units running tasks hold", HeldUnitsSql(d)},
      {&S::promote_due, "promote due tasks", PromoteDueSql(d)},
      {&S::next_due, "next due time", NextDueSql(d)},
      {&S::promote_due_and_next, "promote due tasks",
       d == Dialect::kSqlite ? "" : PromoteDueAndNextSql()},
      {&S::next_due_after, "next due time", d == Dialect::kSqlite ? NextDueAfterSql(d) : ""},
      {&S::start_task, "start attempt", StartTaskSql("")},
      // Not an exclusive run of a job, whose start may have to be undone (StartAttempt).
      {&S::start_plain_task, "start attempt", StartTaskSql("AND job_exclusive = 0 ")},
      {&S::start_plain_with_attempt, "start attempt",
       d == Dialect::kSqlite ? "" : StartWithAttemptSql()},
      {&S::start_and_read, "start attempt", d == Dialect::kSqlite ? "" : StartAndReadSql()},
      {&S::insert_attempt, "insert attempt",
       "INSERT INTO attempts(task_id, number, started, units, stage, host, holder, fence) "
       "VALUES ($1, $2, $3, $4, (SELECT stage FROM tasks WHERE id = $1), $5, $5, $6)"},
      {&S::record_stop, "record a stop request",
       "UPDATE attempts SET stop_reason = $3, stop_task_reason = $4, stop_requested = $5 "
       "WHERE task_id = $1 AND number = $2 AND ended = 0 AND stop_reason = ''"},
      {&S::note_attempt, "note an attempt",
       "UPDATE attempts SET detail = $3 WHERE task_id = $1 AND number = $2 AND ended = 0"},
      {&S::task_run_state, "read task state",
       "SELECT state, attempt_count, job, job_exclusive, shard_group FROM tasks WHERE id = $1"},
      {&S::finish_attempt, "finish attempt",
       FinishAttemptSql() + " RETURNING (SELECT job FROM tasks WHERE id = $1), "
                            "(SELECT job_exclusive FROM tasks WHERE id = $1), "
                            "(SELECT shard_group FROM tasks WHERE id = $1)"},
      {&S::finish_attempt_and_task, "finish attempt",
       d == Dialect::kSqlite ? "" : FinishAttemptAndTaskSql()},
      {&S::finish_task, "finish task",
       "UPDATE tasks SET state = $2, reason = $3, exit_code = $4, signal = $5, finished = $6, "
       "ready = 0, held = 0 WHERE id = $1"},
      {&S::retry_task, "retry task",
       "UPDATE tasks SET state = 'pending', priority = $2, not_before = $3, "
       "ready = CASE WHEN held = 2 THEN 0 ELSE $4 END, exit_code = $5, signal = $6, "
       "held = CASE WHEN held = 2 THEN 2 ELSE $7 END "
       "WHERE id = $1"},
      // The next stage runs where the first ran, its context there ($7: the host, '' for a
      // store one host opens).
      {&S::advance_task, "advance to the next stage",
       "UPDATE tasks SET state = 'pending', stage = stage + 1, priority = base_priority, "
       "run_on = CASE WHEN run_on = '' THEN $7 ELSE run_on END, "
       "not_before = CASE WHEN not_before < $2 THEN not_before ELSE $2 END, "
       "ready = CASE WHEN held = 2 THEN 0 ELSE $3 END, exit_code = $4, signal = $5, "
       "held = CASE WHEN held = 2 THEN 2 ELSE $6 END, queued_attempts = attempt_count "
       "WHERE id = $1 AND stage + 1 < stages"},
      // The last dependency done makes a task ready, unless held or not yet due (deps_left on
      // the right is the value before the update).
      {&S::release_dependents, "release dependents", ReleaseDependentsSql(d, "$2")},
      {&S::pending_dependents, "read dependents", PendingDependentsSql(d)},
      {&S::end_pending, "end pending task",
       "UPDATE tasks SET state = $2, reason = $3, finished = $4, ready = 0, held = 0 "
       "WHERE id = $1 AND state = 'pending' "
       "RETURNING job, CASE WHEN stage > 0 OR shard_group IS NOT NULL THEN 1 ELSE 0 END"},
      {&S::task_exists, "read task", "SELECT 1 FROM tasks WHERE id = $1"},
      {&S::dep_states, "read dependencies",
       "SELECT d.dep_id, t.state FROM task_deps AS d JOIN tasks AS t ON t.id = d.dep_id "
       "WHERE d.task_id = $1 ORDER BY d.rowid" +
           Locking(d, "FOR SHARE OF t")},
      {&S::requeue_task, "requeue task",
       "UPDATE tasks SET state = 'pending', reason = '', finished = 0, priority = base_priority, "
       "not_before = $2, queued_attempts = attempt_count, "
       // The ttl's deadline, at most the largest time (as PendingDeadline).
       "expires_at = CASE WHEN pending_ttl_ms <= 0 THEN NULL "
       "WHEN pending_ttl_ms > 9223372036854775807 - $2 THEN 9223372036854775807 "
       "ELSE $2 + pending_ttl_ms END, deps_left = $3, "
       "ready = $4, held = $5, stage = coalesce($6, stage) "
       "WHERE id = $1 AND (state IN ('failed', 'cancelled') "
       "OR (CAST($7 AS BIGINT) = 1 AND state IN ('succeeded', 'expired')))"},
      {&S::failed_since_queued, "count failed attempts",
       "SELECT attempt_count - queued_attempts FROM tasks WHERE id = $1"},
      // editing pending tasks
      {&S::update_task, "update task", kUpdateTaskSql},
      {&S::hold_task, "hold task",
       "UPDATE tasks SET held = 2, ready = 0 WHERE id = $1 AND held <> 2 "
       "AND (state = 'pending' OR (state = 'running' AND stage + 1 < stages))"},
      {&S::held_run, "read held task",
       "SELECT job, job_exclusive, state, shard_group FROM tasks WHERE id = $1 AND held = 2 "
       "AND state IN ('pending', 'running')"},
      {&S::release_task, "release task",
       "UPDATE tasks SET held = $2, "
       "ready = CASE WHEN state = 'pending' AND CAST($2 AS BIGINT) = 0 AND deps_left = 0 "
       "AND not_before <= $3 "
       "THEN 1 ELSE 0 END "
       "WHERE id = $1 AND state IN ('pending', 'running') AND held = 2"},
      // retention
      {&S::pending_ttl_due, "read expired pending tasks", PendingTtlDueSql(d)},
      {&S::next_pending_ttl, "next pending ttl", NextPendingTtlSql(d)},
      {&S::succeeded_due, "read succeeded tasks", SucceededDueSql(d)},
      {&S::expire_task, "expire task",
       "UPDATE tasks SET state = 'expired' WHERE id = $1 AND state = 'succeeded'"},
      {&S::oldest_succeeded, "oldest succeeded task", OldestSucceededSql(d)},
      {&S::ended_due, "read ended tasks", EndedDueSql(d)},
      {&S::delete_task, "purge task", "DELETE FROM tasks WHERE id = $1"},
      {&S::oldest_ended, "oldest ended task", OldestEndedSql(d)},
      {&S::finished_task, "read finished task",
       "SELECT env_hash, (SELECT CAST(coalesce(sum(output_bytes), 0) AS BIGINT) FROM attempts "
       "WHERE task_id = $1), state "
       "FROM tasks WHERE id = $1 AND state IN ('succeeded', 'failed', 'cancelled', 'expired')"},
      {&S::dependents_of, "read dependents",
       "SELECT task_id FROM task_deps WHERE dep_id = $1 ORDER BY task_id"},
      // what a pending task waits for, deleting queues
      {&S::unfinished_deps, "read unfinished dependencies",
       "SELECT d.dep_id FROM task_deps AS d JOIN tasks AS t ON t.id = d.dep_id "
       "WHERE d.task_id = $1 AND t.state NOT IN ('succeeded', 'expired') ORDER BY d.rowid"},
      {&S::queue_busy, "find a queue's unfinished tasks",
       "SELECT 1 FROM tasks WHERE state IN ('pending', 'running') AND queue = $1 LIMIT 1"},
      {&S::delete_queue, "delete queue", "DELETE FROM queues WHERE name = $1"},
      {&S::recreate_queue, "insert queue",
       "INSERT INTO queues(name) SELECT queue FROM tasks WHERE id = $1 ON CONFLICT DO NOTHING"},
      // cron jobs (jobs.cc)
      {&S::runs_of, "read a job's runs", RunsOfSql(d)},
      {&S::job_running, "find a job's running run", JobRunningSql(d)},
      {&S::hold_runs, "hold a job's exclusive runs", HoldRunsSql(d)},
      {&S::release_runs, "release a job's held runs", ReleaseRunsSql(d)},
      {&S::firing_exists, "read firing",
       "SELECT 1 FROM job_firings WHERE job = $1 AND scheduled = $2"},
      // A firing holds its job's row: two hosts firing one time take turns, and the second
      // finds the first's firing (issue 50).
      {&S::job_fired, "read job",
       "SELECT last_fired, boot_id, disabled FROM jobs WHERE job = $1" +
           Locking(d, "FOR NO KEY UPDATE")},
      {&S::lock_job, "hold a job",  // only PostgreSQL's: SQLite has one writer
       d == Dialect::kSqlite ? "" : "SELECT 1 FROM jobs WHERE job = $1 FOR NO KEY UPDATE"},
      {&S::hold_for_job, "hold a job's run",
       "UPDATE tasks SET held = 1, ready = 0 WHERE id = $1 AND state = 'pending' AND held = 0"},
      {&S::insert_job, "insert job",
       "INSERT INTO jobs(job, first_seen) VALUES ($1, $2) ON CONFLICT DO NOTHING"},
      {&S::drop_old_firings, "drop old firings",
       "DELETE FROM job_firings WHERE job = $1 AND scheduled < $2 AND task_id IS NULL"},
      {&S::insert_firing, "record firing",
       "INSERT INTO job_firings(job, scheduled, boot_id, task_id) VALUES ($1, $2, $3, $4)"},
      {&S::set_last_fired, "record firing", "UPDATE jobs SET last_fired = $2 WHERE job = $1"},
      {&S::set_boot_fired, "record firing", "UPDATE jobs SET boot_id = $2 WHERE job = $1"},
      {&S::set_last_task, "record a job's task", "UPDATE jobs SET last_task = $2 WHERE job = $1"},
      {&S::job_records, "list jobs",
       "SELECT j.job, j.first_seen, j.last_fired, j.boot_id, j.disabled, j.last_task, t.state, "
       "t.reason, t.exit_code, j.last_success, j.overdue_alerted, (SELECT max(f.scheduled) FROM "
       "job_firings AS f WHERE f.job = j.job AND f.task_id IS NOT NULL) FROM jobs AS j "
       // A sharded run's outcome is its group's (GroupState): that of the shard that decides it.
       "LEFT JOIN tasks AS t ON t.id = coalesce((SELECT s.id FROM tasks AS s "
       "WHERE s.shard_group = j.last_task ORDER BY CASE s.state WHEN 'running' THEN 0 "
       "WHEN 'pending' THEN 1 WHEN 'failed' THEN 2 WHEN 'cancelled' THEN 3 WHEN 'succeeded' "
       "THEN 4 ELSE 5 END, s.id LIMIT 1), j.last_task) ORDER BY j.job"},
      {&S::group_unsucceeded, "read a group's outcome",
       "SELECT 1 FROM tasks WHERE shard_group = $1 AND state <> 'succeeded' LIMIT 1"},
      {&S::set_last_success, "record a job's success",
       "UPDATE jobs SET last_success = CASE WHEN last_success > $2 THEN last_success ELSE $2 END "
       "WHERE job = $1"},
      {&S::drop_idle_queues, "forget idle queues",
       "DELETE FROM queues WHERE name IN (SELECT name FROM queues WHERE NOT " + QueueInUse() +
           Locking(d, "FOR UPDATE SKIP LOCKED") + ")"},
      // One queue PrepareInsert made for a submit then refused, where idle.
      {&S::drop_queue_if_idle, "forget an idle queue",
       "DELETE FROM queues WHERE name IN (SELECT name FROM queues WHERE name = $1 AND NOT " +
           QueueInUse() + Locking(d, "FOR UPDATE SKIP LOCKED") + ")"},
      // Environments no task uses: left by PrepareInsert for a submit then refused (PostgreSQL).
      {&S::drop_unused_envs, "drop env",
       d == Dialect::kSqlite
           ? ""
           : "DELETE FROM envs WHERE hash IN (SELECT hash FROM envs AS e WHERE NOT EXISTS "
             "(SELECT 1 FROM tasks WHERE env_hash = e.hash) LIMIT 64 FOR UPDATE SKIP LOCKED)"},
      // Counts come back to zero (PostgreSQL's schema v7 keeps the row; SQLite's deletes it).
      {&S::drop_zero_counts, "forget counts at zero",
       d == Dialect::kSqlite
           ? ""
           : "DELETE FROM task_counts WHERE (queue, state, slot) IN (SELECT queue, state, slot "
             "FROM task_counts WHERE n = 0 FOR UPDATE SKIP LOCKED)"},
      {&S::active_queues_of, "list a user's queues",
       "SELECT DISTINCT queue FROM tasks WHERE owner_uid = $1 AND state IN ('pending', "
       "'running') ORDER BY queue"},
      // output kept for every host (saved_output.cc)
      {&S::save_output, "keep an attempt's output",  // of an attempt the store holds only
       "INSERT INTO attempt_output(task_id, number, stdout, stderr, output_order) "
       "SELECT task_id, number, $3, $4, $5 FROM attempts WHERE task_id = $1 AND number = $2 "
       "ON CONFLICT (task_id, number) DO UPDATE SET "
       "stdout = excluded.stdout, stderr = excluded.stderr, output_order = excluded.output_order"},
      {&S::saved_output, "read an attempt's kept output",
       "SELECT stdout, stderr, output_order FROM attempt_output WHERE task_id = $1 AND number = "
       "$2"},
      // hosts (hosts.cc)
      {&S::join_host, "join as a host",
       "INSERT INTO hosts(name, version, epoch, beats, started, heartbeat, max_running) "
       "VALUES ($1, $2, 1, 0, $3, " +
           std::string(d == Dialect::kSqlite ? "$3" : kServerNowMs) +
           ", $4) "
           "ON CONFLICT(name) DO UPDATE SET version = excluded.version, epoch = hosts.epoch + 1, "
           "beats = 0, started = excluded.started, heartbeat = excluded.heartbeat, "
           "max_running = excluded.max_running RETURNING epoch"},
      {&S::adopt_attempts, "join as a host",
       d == Dialect::kSqlite  // one machine opens the file: every open attempt is its own
           ? "UPDATE attempts SET host = $1, holder = $1, fence = $2 WHERE ended = 0"
           : "UPDATE attempts SET host = CASE WHEN host = '' THEN $1 ELSE host END, "
             "holder = $1, fence = $2 WHERE ended = 0 AND holder IN ($1, '')"},
      {&S::host_current, "read the host's epoch",
       "SELECT 1 FROM hosts WHERE name = $1 AND epoch = $2"},
      {&S::heartbeat, "record a heartbeat",
       "UPDATE hosts SET beats = beats + 1, max_running = $3, heartbeat = " +
           std::string(d == Dialect::kSqlite ? "$4" : kServerNowMs) +
           " WHERE name = $1 AND epoch = $2 RETURNING heartbeat"},
      {&S::hosts, "list hosts",
       "SELECT h.name, h.version, h.epoch, h.beats, h.started, h.heartbeat, h.max_running, "
       "(SELECT count(*) FROM attempts AS a WHERE a.holder = h.name AND a.ended = 0), " +
           std::string(d == Dialect::kSqlite ? "0" : kServerNowMs) +
           " FROM hosts AS h ORDER BY h.name"},
      {&S::leave_host, "record a clean stop",
       "UPDATE hosts SET beats = -2 WHERE name = $1 AND epoch = $2"},  // kStoppedBeats
      // A host beating or stopped cleanly, not one fenced already (kFencedBeats). One whose row
      // a transaction holds is writing it (a heartbeat under way, perhaps frozen before its
      // commit): passed over, never waited for, until that transaction ends.
      {&S::fence_host, "fence a host",
       "UPDATE hosts SET epoch = epoch + 1, beats = -1 "
       "WHERE name = $1 AND beats = $2 AND beats <> -1 AND name <> $3 "
       "AND EXISTS (SELECT 1 FROM hosts AS me WHERE me.name = $3 AND me.epoch = $4)" +
           (d == Dialect::kSqlite ? std::string()
                                  : " AND name IN (SELECT name FROM hosts WHERE name = $1 "
                                    "FOR UPDATE SKIP LOCKED)")},
      // An attempt whose row a transaction holds (its host froze inside its end) is passed
      // over, never waited for: TakeFenced takes it once that transaction is over.
      {&S::take_attempts, "take a fenced host's attempts",
       d == Dialect::kSqlite
           ? "UPDATE attempts SET holder = $2, fence = $3 WHERE holder = $1 AND ended = 0 "
             "RETURNING task_id, number"
           : "UPDATE attempts AS a SET holder = $2, fence = $3 FROM (SELECT task_id, number "
             "FROM attempts WHERE holder = $1 AND ended = 0 FOR UPDATE SKIP LOCKED) AS f "
             "WHERE a.task_id = f.task_id AND a.number = f.number "
             "RETURNING a.task_id, a.number"},
      // Only PostgreSQL's: one host opens SQLite's file.
      {&S::take_fenced, "take the attempts fenced hosts hold",
       d == Dialect::kSqlite
           ? ""
           : "UPDATE attempts AS a SET holder = $1, fence = $2 FROM (SELECT o.task_id, o.number, "
             "o.holder FROM attempts AS o JOIN hosts AS h ON h.name = o.holder WHERE o.ended = 0 "
             "AND h.beats = -1 AND o.fence < h.epoch AND EXISTS (SELECT 1 FROM hosts AS me "
             "WHERE me.name = $1 AND me.epoch = $2 AND me.beats >= 0) "
             "FOR UPDATE OF o SKIP LOCKED) AS f "
             "WHERE a.task_id = f.task_id AND a.number = f.number "
             "RETURNING a.task_id, a.number, f.holder"},
      {&S::context_lost, "find stages whose context was lost",  // only PostgreSQL's
       d == Dialect::kSqlite
           ? ""
           : "SELECT t.id FROM tasks AS t JOIN hosts AS h ON h.name = t.run_on "
             "WHERE h.beats = -1 AND t.state = 'pending' AND t.stage > 0 ORDER BY t.id "
             "FOR UPDATE OF t SKIP LOCKED"},
      {&S::passed_on, "list attempts passed to other hosts",
       "SELECT task_id, number FROM attempts WHERE host = $1 AND holder <> host "
       "ORDER BY task_id, number"},
      {&S::jobs_with_tasks, "forget jobs", "SELECT DISTINCT job FROM tasks WHERE job IS NOT NULL"},
      {&S::forget_job, "forget jobs", "DELETE FROM jobs WHERE job = $1"},
      {&S::forget_firings, "forget jobs", "DELETE FROM job_firings WHERE job = $1"},
      {&S::set_overdue_alerted, "record a job's overdue alert",
       "UPDATE jobs SET overdue_alerted = $2 WHERE job = $1"},
      {&S::set_job_disabled, "disable job", "UPDATE jobs SET disabled = $2 WHERE job = $1"},
      {&S::job_files, "read job files", "SELECT path, text, saved FROM job_files ORDER BY path"},
      {&S::save_job_file, "save job file",
       "INSERT INTO job_files(path, text, saved) VALUES ($1, $2, $3) "
       "ON CONFLICT(path) DO UPDATE SET text = excluded.text, saved = excluded.saved"},
      {&S::forget_job_file, "forget job file", "DELETE FROM job_files WHERE path = $1"},
  };
  for (const auto& entry : kTable) {
    if (entry.sql.empty()) continue;  // not this database's
    Result<sql::Stmt> stmt = db_->Prepare(entry.what, entry.sql);
    if (!stmt.ok()) return stmt.status();
    (*st_).*entry.stmt = std::move(*stmt);
  }
  return Status::Ok();
}

}  // namespace tq
