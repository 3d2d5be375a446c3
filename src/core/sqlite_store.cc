#include "core/sqlite_store.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "core/migrations.h"
#include "core/stored_bytes.h"

namespace tq {

namespace {

using sqlite::DecodeList;
using sqlite::EncodeList;
using sqlite::EnvKey;
using sqlite::FirstWithNul;

constexpr uint64_t kMaxEnvSalt = 16;  // collisions of a 64-bit hash: one salt is already rare

// ---- SQL ----

// The task row for Get (all of it) and List (without stdin and env, which can be large).
std::string TaskSelect(bool full) {
  return std::string(
             "SELECT t.id, t.owner_uid, t.owner_gid, t.owner_name, t.argv, t.shell, t.queue, "
             "t.priority, ") +
         (full ? "t.stdin_data" : "NULL") + ", t.cwd, " + (full ? "e.data" : "NULL") +
         ", t.clean_env, t.not_before, t.timeout_ms, t.state, t.reason, t.attempt_count, "
         "t.exit_code, t.signal, t.created, t.finished FROM tasks AS t ";
}
// Column positions of TaskSelect.
// clang-format off
enum TaskCol {
  kId, kOwnerUid, kOwnerGid, kOwnerName, kArgv, kShell, kQueue, kPriority, kStdin, kCwd, kEnv,
  kCleanEnv, kNotBefore, kTimeoutMs, kState, kReason, kAttemptCount, kExitCode, kSignal,
  kCreated, kFinished,
};
// clang-format on

// The hot queries name their partial index: the planner, without statistics, would rather take
// tasks_by_state (state = 'pending') and walk every pending task. If the index is missing or its
// condition no longer matches the query's literal terms, prepare fails loudly at open.
constexpr const char* kFirstReadyByPrioritySql =
    "SELECT id, priority FROM tasks INDEXED BY tasks_ready_by_priority "
    "WHERE ready = 1 AND queue = ?1 ORDER BY priority, id LIMIT 1";
constexpr const char* kFirstReadyOldestSql =
    "SELECT id, priority FROM tasks INDEXED BY tasks_ready_by_id "
    "WHERE ready = 1 AND queue = ?1 ORDER BY id LIMIT 1";
constexpr const char* kPromoteDueSql =
    "UPDATE tasks INDEXED BY tasks_delayed SET ready = 1 "
    "WHERE state = 'pending' AND ready = 0 AND deps_left = 0 AND not_before <= ?1";
constexpr const char* kNextDueSql =
    "SELECT min(not_before) FROM tasks INDEXED BY tasks_delayed "
    "WHERE state = 'pending' AND ready = 0 AND deps_left = 0";

// List: one statement per combination of filters, prepared on first use.
enum ListFilterBit { kByOwner = 1, kByState = 2, kByQueue = 4, kByLabel = 8 };
std::string ListSql(int mask) {
  std::string sql = TaskSelect(false) + "WHERE 1";
  if (mask & kByOwner) sql += " AND t.owner_uid = ?";
  if (mask & kByState) sql += " AND t.state = ?";
  if (mask & kByQueue) sql += " AND t.queue = ?";
  if (mask & kByLabel) sql += " AND t.id IN (SELECT task_id FROM task_labels WHERE label = ?)";
  return sql + " ORDER BY t.id DESC LIMIT ?";
}

bool DepDone(TaskState s) {
  return s == TaskState::kSucceeded || s == TaskState::kExpired;
}

std::string TaskName(TaskId id) {
  return "task " + std::to_string(id);
}

Result<Task> ReadTask(const sqlite::Query& q) {
  Task t;
  t.id = q.Int(kId);
  auto corrupt = [&t](const char* what) {
    return sqlite::Error("read " + TaskName(t.id), std::string("corrupt ") + what);
  };
  t.owner.uid = static_cast<uint32_t>(q.Int(kOwnerUid));
  t.owner.gid = static_cast<uint32_t>(q.Int(kOwnerGid));
  t.owner.name = q.Text(kOwnerName);
  if (!DecodeList(q.Blob(kArgv), &t.spec.argv)) return corrupt("argv");
  if (!q.IsNull(kShell)) t.spec.shell = q.Blob(kShell);
  t.spec.queue = q.Text(kQueue);
  t.spec.priority = static_cast<int>(q.Int(kPriority));
  if (!q.IsNull(kStdin)) t.spec.stdin_data = q.Blob(kStdin);
  t.spec.cwd = q.Blob(kCwd);
  if (!DecodeList(q.Blob(kEnv), &t.spec.env)) return corrupt("env");
  t.spec.clean_env = q.Int(kCleanEnv) != 0;
  t.spec.not_before = q.Int(kNotBefore);
  t.spec.timeout_ms = q.Int(kTimeoutMs);
  std::optional<TaskState> state = StateFromName(q.Text(kState));
  if (!state) return corrupt("state");
  t.state = *state;
  std::optional<TaskReason> reason = TaskReasonFromName(q.Text(kReason));
  if (!reason) return corrupt("reason");
  t.reason = *reason;
  t.attempt_count = static_cast<int>(q.Int(kAttemptCount));
  t.exit_code = static_cast<int>(q.Int(kExitCode));
  t.signal = static_cast<int>(q.Int(kSignal));
  t.created = q.Int(kCreated);
  t.finished = q.Int(kFinished);
  return t;
}

}  // namespace

// ---- statements ----

struct SqliteStore::Statements {
  sqlite::Stmt dep_owner_state, env_by_hash, insert_env, insert_queue, insert_task, insert_label,
      insert_dep;
  sqlite::Stmt get_task, task_labels, task_deps, task_attempts, queues;
  std::array<sqlite::Stmt, 16> list;  // by ListFilterBit mask
  sqlite::Stmt first_ready_priority, first_ready_oldest, promote_due, next_due;
  sqlite::Stmt start_task, insert_attempt, set_pids, task_run_state, finish_attempt, finish_task,
      dependents_decrement, dependents_ready;
  sqlite::Stmt end_pending, task_exists, running_attempts, count_running_all, count_running_queue;
};

Status SqliteStore::Prepare() {
  using S = Statements;
  const struct {
    sqlite::Stmt S::*stmt;
    const char* what;
    std::string sql;
  } kTable[] = {
      {&S::dep_owner_state, "read dependency", "SELECT owner_uid, state FROM tasks WHERE id = ?1"},
      {&S::env_by_hash, "read env", "SELECT data FROM envs WHERE hash = ?1"},
      {&S::insert_env, "insert env", "INSERT INTO envs(hash, data) VALUES (?1, ?2)"},
      {&S::insert_queue, "insert queue", "INSERT OR IGNORE INTO queues(name) VALUES (?1)"},
      {&S::insert_task, "insert task",
       "INSERT INTO tasks(owner_uid, owner_gid, owner_name, argv, shell, queue, priority, "
       "stdin_data, cwd, env_hash, clean_env, not_before, timeout_ms, state, created, ready, "
       "deps_left) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 'pending', "
       "?14, ?15, ?16)"},
      {&S::insert_label, "insert label",
       "INSERT INTO task_labels(task_id, pos, label) VALUES (?1, ?2, ?3)"},
      {&S::insert_dep, "insert dependency",
       "INSERT INTO task_deps(task_id, dep_id) VALUES (?1, ?2)"},
      {&S::get_task, "get task",
       TaskSelect(true) + "JOIN envs AS e ON e.hash = t.env_hash WHERE t.id = ?1"},
      {&S::task_labels, "read labels",
       "SELECT label FROM task_labels WHERE task_id = ?1 ORDER BY pos"},
      {&S::task_deps, "read dependencies",
       "SELECT dep_id FROM task_deps WHERE task_id = ?1 ORDER BY rowid"},
      {&S::task_attempts, "read attempts",
       "SELECT number, started, ended, pid, shim_pid, exit_code, signal, reason, user_cpu_us, "
       "system_cpu_us, max_rss_kb FROM attempts WHERE task_id = ?1 ORDER BY number"},
      {&S::queues, "list queues", "SELECT name FROM queues ORDER BY name"},
      {&S::first_ready_priority, "first ready task", kFirstReadyByPrioritySql},
      {&S::first_ready_oldest, "first ready task", kFirstReadyOldestSql},
      {&S::promote_due, "promote due tasks", kPromoteDueSql},
      {&S::next_due, "next due time", kNextDueSql},
      {&S::start_task, "start attempt",
       "UPDATE tasks SET state = 'running', ready = 0, attempt_count = attempt_count + 1 "
       "WHERE id = ?1 AND ready = 1 AND state = 'pending' RETURNING attempt_count"},
      {&S::insert_attempt, "insert attempt",
       "INSERT INTO attempts(task_id, number, started) VALUES (?1, ?2, ?3)"},
      {&S::set_pids, "set attempt pids",
       "UPDATE attempts SET pid = ?3, shim_pid = ?4 WHERE task_id = ?1 AND number = ?2"},
      {&S::task_run_state, "read task state",
       "SELECT state, attempt_count FROM tasks WHERE id = ?1"},
      {&S::finish_attempt, "finish attempt",
       "UPDATE attempts SET ended = ?3, exit_code = ?4, signal = ?5, reason = ?6, "
       "user_cpu_us = ?7, system_cpu_us = ?8, max_rss_kb = ?9, pid = iif(?10 > 0, ?10, pid) "
       "WHERE task_id = ?1 AND number = ?2"},
      {&S::finish_task, "finish task",
       "UPDATE tasks SET state = ?2, reason = ?3, exit_code = ?4, signal = ?5, finished = ?6, "
       "ready = 0 WHERE id = ?1"},
      {&S::dependents_decrement, "release dependents",
       "UPDATE tasks SET deps_left = deps_left - 1 WHERE deps_left > 0 "
       "AND id IN (SELECT task_id FROM task_deps WHERE dep_id = ?1)"},
      {&S::dependents_ready, "release dependents",
       "UPDATE tasks SET ready = 1 WHERE state = 'pending' AND ready = 0 AND deps_left = 0 "
       "AND not_before <= ?2 AND id IN (SELECT task_id FROM task_deps WHERE dep_id = ?1)"},
      {&S::end_pending, "end pending task",
       "UPDATE tasks SET state = ?2, reason = ?3, finished = ?4, ready = 0 "
       "WHERE id = ?1 AND state = 'pending'"},
      {&S::task_exists, "read task", "SELECT 1 FROM tasks WHERE id = ?1"},
      {&S::running_attempts, "list running attempts",
       "SELECT a.task_id, a.number, a.pid, a.shim_pid, t.queue FROM tasks AS t "
       "JOIN attempts AS a ON a.task_id = t.id AND a.number = t.attempt_count "
       "WHERE t.state = 'running' ORDER BY t.id"},
      {&S::count_running_all, "count running",
       "SELECT count(*) FROM tasks WHERE state = 'running'"},
      {&S::count_running_queue, "count running",
       "SELECT count(*) FROM tasks WHERE state = 'running' AND queue = ?1"},
  };
  for (const auto& entry : kTable) {
    Result<sqlite::Stmt> stmt = sqlite::Stmt::Prepare(db_, entry.what, entry.sql);
    if (!stmt.ok()) return stmt.status();
    (*st_).*entry.stmt = std::move(*stmt);
  }
  return Status::Ok();
}

// ---- open ----

SqliteStore::SqliteStore(sqlite::Db db) : db_(std::move(db)), st_(std::make_unique<Statements>()) {}

SqliteStore::~SqliteStore() = default;

Result<std::unique_ptr<SqliteStore>> SqliteStore::Open(const std::string& path,
                                                       bool durability_full) {
  Result<sqlite::Db> db = sqlite::Db::Open(path);
  if (!db.ok()) return db.status();
  // Another process (an old tqd exiting, the sqlite3 shell) may hold the lock for a moment.
  if (Status s = db->Exec("set busy timeout", "PRAGMA busy_timeout = 5000"); !s.ok()) return s;
  Result<std::string> mode = db->QueryText("enable WAL", "PRAGMA journal_mode = WAL");
  if (!mode.ok()) return mode.status();
  if (*mode != "wal" && *mode != "memory") {
    return sqlite::Error("enable WAL", "journal mode is still " + *mode);
  }
  const char* sync = durability_full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL";
  if (Status s = db->Exec("set synchronous", sync); !s.ok()) return s;
  if (Status s = Migrate(*db, path); !s.ok()) return s;
  if (Status s = db->Exec("enable foreign keys", "PRAGMA foreign_keys = ON"); !s.ok()) return s;

  std::unique_ptr<SqliteStore> store(new SqliteStore(std::move(*db)));
  if (Status s = store->Prepare(); !s.ok()) return s;
  return store;
}

Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path, bool durability_full) {
  Result<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path, durability_full);
  if (!store.ok()) return store.status();
  return std::unique_ptr<Store>(std::move(*store));
}

template <typename Body>
Status SqliteStore::Write(Body&& body) {
  sqlite::Transaction tx(db_);
  if (Status s = tx.Begin(); !s.ok()) return s;
  if (Status s = body(); !s.ok()) return s;  // tx rolls back
  return tx.Commit();
}

// ---- insert ----

Status SqliteStore::CheckDeps(const Owner& owner, const std::vector<TaskId>& after,
                              int* deps_left) {
  *deps_left = 0;
  for (TaskId dep : after) {
    sqlite::Query q(st_->dep_owner_state);
    Result<bool> row = q.BindInt(dep).Step();
    if (!row.ok()) return row.status();
    // Another owner's task answers exactly like a missing one, so ids cannot be probed.
    if (!*row || static_cast<uint32_t>(q.Int(0)) != owner.uid) {
      return Status(ErrorCode::kNotFound, "after", TaskName(dep) + " not found");
    }
    std::optional<TaskState> state = StateFromName(q.Text(1));
    if (!state) return sqlite::Error("read " + TaskName(dep), "corrupt state");
    if (!DepDone(*state)) ++*deps_left;
  }
  return Status::Ok();
}

Result<std::string> SqliteStore::StoreEnv(const std::string& data) {
  for (uint64_t salt = 0; salt <= kMaxEnvSalt; ++salt) {
    std::string key = EnvKey(data, salt);
    {
      sqlite::Query q(st_->env_by_hash);
      Result<bool> row = q.BindText(key).Step();
      if (!row.ok()) return row.status();
      if (*row) {
        if (q.Blob(0) == data) return key;
        continue;  // a collision: try the next salt
      }
    }
    sqlite::Query insert(st_->insert_env);
    if (Status s = insert.BindText(key).BindBlob(data).Run(); !s.ok()) return s;
    return key;
  }
  return sqlite::Error("insert env", "too many hash collisions");
}

Status SqliteStore::InsertRows(TaskId id, const TaskSpec& spec, const std::vector<TaskId>& deps) {
  for (size_t pos = 0; pos < spec.labels.size(); ++pos) {
    sqlite::Query q(st_->insert_label);
    q.BindInt(id).BindInt(static_cast<int64_t>(pos)).BindText(spec.labels[pos]);
    if (Status s = q.Run(); !s.ok()) return s;
  }
  for (TaskId dep : deps) {
    sqlite::Query q(st_->insert_dep);
    if (Status s = q.BindInt(id).BindInt(dep).Run(); !s.ok()) return s;
  }
  return Status::Ok();
}

Result<TaskId> SqliteStore::Insert(const Owner& owner, const TaskSpec& spec, WallMs now) {
  if (std::optional<size_t> i = FirstWithNul(spec.argv)) {
    return Status::Invalid("argv", "argv[" + std::to_string(*i) + "] contains a NUL byte");
  }
  if (std::optional<size_t> i = FirstWithNul(spec.env)) {  // never quote the entry: a secret
    return Status::Invalid("env", "env entry " + std::to_string(*i) + " contains a NUL byte");
  }
  std::vector<TaskId> deps;
  for (TaskId dep : spec.after) {
    if (std::find(deps.begin(), deps.end(), dep) == deps.end()) deps.push_back(dep);
  }

  TaskId id = 0;
  Status status = Write([&]() -> Status {
    int deps_left = 0;
    if (Status s = CheckDeps(owner, deps, &deps_left); !s.ok()) return s;
    Result<std::string> env_key = StoreEnv(EncodeList(spec.env));
    if (!env_key.ok()) return env_key.status();
    {
      sqlite::Query q(st_->insert_queue);
      if (Status s = q.BindText(spec.queue).Run(); !s.ok()) return s;
    }
    {
      const bool ready = deps_left == 0 && spec.not_before <= now;
      sqlite::Query q(st_->insert_task);
      q.BindInt(owner.uid).BindInt(owner.gid).BindText(owner.name);
      q.BindBlob(EncodeList(spec.argv)).BindOptBlob(spec.shell).BindText(spec.queue);
      q.BindInt(spec.priority).BindOptBlob(spec.stdin_data).BindBlob(spec.cwd);
      q.BindText(*env_key).BindInt(spec.clean_env ? 1 : 0).BindInt(spec.not_before);
      q.BindInt(spec.timeout_ms).BindInt(now).BindInt(ready ? 1 : 0).BindInt(deps_left);
      if (Status s = q.Run(); !s.ok()) return s;
    }
    id = db_.LastInsertRowid();
    return InsertRows(id, spec, deps);
  });
  if (!status.ok()) return status;
  return id;
}

// ---- reads ----

Status SqliteStore::LoadLists(Task& task, bool with_attempts) {
  {
    sqlite::Query q(st_->task_labels);
    Status s = q.BindInt(task.id).ForEach([&] { task.spec.labels.push_back(q.Text(0)); });
    if (!s.ok()) return s;
  }
  {
    sqlite::Query q(st_->task_deps);
    Status s = q.BindInt(task.id).ForEach([&] { task.spec.after.push_back(q.Int(0)); });
    if (!s.ok()) return s;
  }
  if (!with_attempts) return Status::Ok();
  sqlite::Query q(st_->task_attempts);
  return q.BindInt(task.id).ForEach([&]() -> Status {
    Attempt a;
    a.number = static_cast<int>(q.Int(0));
    a.started = q.Int(1);
    a.ended = q.Int(2);
    a.pid = static_cast<int>(q.Int(3));
    a.shim_pid = static_cast<int>(q.Int(4));
    a.exit_code = static_cast<int>(q.Int(5));
    a.signal = static_cast<int>(q.Int(6));
    std::optional<AttemptReason> reason = AttemptReasonFromName(q.Text(7));
    if (!reason) return sqlite::Error("read attempts of " + TaskName(task.id), "corrupt reason");
    a.reason = *reason;
    a.user_cpu_us = q.Int(8);
    a.system_cpu_us = q.Int(9);
    a.max_rss_kb = q.Int(10);
    task.attempts.push_back(a);
    return Status::Ok();
  });
}

Result<Task> SqliteStore::Get(TaskId id) {
  Result<Task> task = Status::NotFound(TaskName(id) + " not found");
  {
    sqlite::Query q(st_->get_task);
    Result<bool> row = q.BindInt(id).Step();
    if (!row.ok()) return row.status();
    if (!*row) return task;
    task = ReadTask(q);
    if (!task.ok()) return task;
  }
  if (Status s = LoadLists(*task, true); !s.ok()) return s;
  return task;
}

Result<sqlite::Stmt*> SqliteStore::ListStatement(const ListFilter& filter) {
  int mask = (filter.owner_uid ? kByOwner : 0) | (filter.state ? kByState : 0) |
             (filter.queue ? kByQueue : 0) | (filter.label ? kByLabel : 0);
  sqlite::Stmt& stmt = st_->list[mask];
  if (!stmt.prepared()) {
    Result<sqlite::Stmt> prepared = sqlite::Stmt::Prepare(db_, "list tasks", ListSql(mask));
    if (!prepared.ok()) return prepared.status();
    stmt = std::move(*prepared);
  }
  return &stmt;
}

Result<std::vector<Task>> SqliteStore::List(const ListFilter& filter) {
  Result<sqlite::Stmt*> stmt = ListStatement(filter);
  if (!stmt.ok()) return stmt.status();
  std::vector<Task> tasks;
  {
    sqlite::Query q(**stmt);
    if (filter.owner_uid) q.BindInt(*filter.owner_uid);
    if (filter.state) q.BindText(StateName(*filter.state));
    if (filter.queue) q.BindText(*filter.queue);
    if (filter.label) q.BindText(*filter.label);
    q.BindInt(filter.limit > 0 ? filter.limit : -1);  // LIMIT -1: no limit
    Status s = q.ForEach([&]() -> Status {
      Result<Task> task = ReadTask(q);
      if (!task.ok()) return task.status();
      tasks.push_back(std::move(*task));
      return Status::Ok();
    });
    if (!s.ok()) return s;
  }
  for (Task& task : tasks) {
    if (Status s = LoadLists(task, false); !s.ok()) return s;
  }
  return tasks;
}

Result<std::vector<std::string>> SqliteStore::Queues() {
  std::vector<std::string> names;
  sqlite::Query q(st_->queues);
  if (Status s = q.ForEach([&] { names.push_back(q.Text(0)); }); !s.ok()) return s;
  return names;
}

// ---- the ready set ----

Result<std::optional<Candidate>> SqliteStore::FirstReady(const std::string& queue,
                                                         ReadyOrder order) {
  sqlite::Query q(order == ReadyOrder::kHighestPriority ? st_->first_ready_priority
                                                        : st_->first_ready_oldest);
  Result<bool> row = q.BindText(queue).Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<Candidate>();
  return std::optional<Candidate>(Candidate{q.Int(0), static_cast<int>(q.Int(1))});
}

Result<int> SqliteStore::PromoteDue(WallMs now) {
  int promoted = 0;
  Status status = Write([&]() -> Status {
    sqlite::Query q(st_->promote_due);
    if (Status s = q.BindInt(now).Run(); !s.ok()) return s;
    promoted = db_.Changes();
    return Status::Ok();
  });
  if (!status.ok()) return status;
  return promoted;
}

Result<std::optional<WallMs>> SqliteStore::NextDue() {
  sqlite::Query q(st_->next_due);
  Result<bool> row = q.Step();
  if (!row.ok()) return row.status();
  if (!*row || q.IsNull(0)) return std::optional<WallMs>();
  return std::optional<WallMs>(q.Int(0));
}

// ---- attempts ----

Result<std::optional<int>> SqliteStore::StartAttempt(TaskId id, WallMs now) {
  std::optional<int> number;
  Status status = Write([&]() -> Status {
    {
      sqlite::Query q(st_->start_task);
      Result<bool> row = q.BindInt(id).Step();
      if (!row.ok()) return row.status();
      if (!*row) return Status::Ok();  // not ready (any more): nothing changes
      number = static_cast<int>(q.Int(0));
      if (Status s = q.Run(); !s.ok()) return s;  // finish the statement before the insert
    }
    sqlite::Query q(st_->insert_attempt);
    return q.BindInt(id).BindInt(*number).BindInt(now).Run();
  });
  if (!status.ok()) return status;
  return number;
}

Status SqliteStore::SetAttemptPids(TaskId id, int attempt, int pid, int shim_pid) {
  return Write([&]() -> Status {
    sqlite::Query q(st_->set_pids);
    if (Status s = q.BindInt(id).BindInt(attempt).BindInt(pid).BindInt(shim_pid).Run(); !s.ok()) {
      return s;
    }
    if (db_.Changes() == 0) {
      return Status::NotFound(TaskName(id) + " has no attempt " + std::to_string(attempt));
    }
    return Status::Ok();
  });
}

Status SqliteStore::ReleaseDependents(TaskId id, WallMs now) {
  {
    sqlite::Query q(st_->dependents_decrement);
    if (Status s = q.BindInt(id).Run(); !s.ok()) return s;
  }
  sqlite::Query q(st_->dependents_ready);
  return q.BindInt(id).BindInt(now).Run();
}

Status SqliteStore::FinishAttempt(TaskId id, int attempt, const AttemptOutcome& outcome,
                                  TaskState final_state, TaskReason reason) {
  if (final_state != TaskState::kSucceeded && final_state != TaskState::kFailed &&
      final_state != TaskState::kCancelled) {
    return Status::Invalid(
        "state", std::string("a finished attempt cannot leave its task ") + StateName(final_state));
  }
  return Write([&]() -> Status {
    {
      sqlite::Query q(st_->task_run_state);
      Result<bool> row = q.BindInt(id).Step();
      if (!row.ok()) return row.status();
      if (!*row) return Status::NotFound(TaskName(id) + " not found");
      if (q.Text(0) != StateName(TaskState::kRunning) || q.Int(1) != attempt) {
        return Status::Invalid("attempt",
                               TaskName(id) + " is not running attempt " + std::to_string(attempt));
      }
    }
    {
      sqlite::Query q(st_->finish_attempt);
      q.BindInt(id).BindInt(attempt).BindInt(outcome.ended).BindInt(outcome.exit_code);
      q.BindInt(outcome.signal).BindText(AttemptReasonName(outcome.reason));
      q.BindInt(outcome.user_cpu_us).BindInt(outcome.system_cpu_us).BindInt(outcome.max_rss_kb);
      q.BindInt(outcome.pid);
      if (Status s = q.Run(); !s.ok()) return s;
    }
    {
      sqlite::Query q(st_->finish_task);
      q.BindInt(id).BindText(StateName(final_state)).BindText(TaskReasonName(reason));
      q.BindInt(outcome.exit_code).BindInt(outcome.signal).BindInt(outcome.ended);
      if (Status s = q.Run(); !s.ok()) return s;
    }
    if (final_state != TaskState::kSucceeded) return Status::Ok();
    return ReleaseDependents(id, outcome.ended);
  });
}

Result<bool> SqliteStore::EndPending(TaskId id, TaskState final_state, TaskReason reason,
                                     WallMs now) {
  if (final_state != TaskState::kCancelled && final_state != TaskState::kFailed) {
    return Status::Invalid("state",
                           std::string("a pending task cannot end ") + StateName(final_state));
  }
  bool ended = false;
  Status status = Write([&]() -> Status {
    {
      sqlite::Query q(st_->end_pending);
      q.BindInt(id).BindText(StateName(final_state)).BindText(TaskReasonName(reason)).BindInt(now);
      if (Status s = q.Run(); !s.ok()) return s;
    }
    ended = db_.Changes() > 0;
    if (ended) return Status::Ok();
    sqlite::Query q(st_->task_exists);
    Result<bool> row = q.BindInt(id).Step();
    if (!row.ok()) return row.status();
    return *row ? Status::Ok() : Status::NotFound(TaskName(id) + " not found");
  });
  if (!status.ok()) return status;
  return ended;
}

Result<std::vector<RunningAttempt>> SqliteStore::RunningAttempts() {
  std::vector<RunningAttempt> running;
  sqlite::Query q(st_->running_attempts);
  Status s = q.ForEach([&] {
    running.push_back(RunningAttempt{q.Int(0), static_cast<int>(q.Int(1)),
                                     static_cast<int>(q.Int(2)), static_cast<int>(q.Int(3)),
                                     q.Text(4)});
  });
  if (!s.ok()) return s;
  return running;
}

Result<int> SqliteStore::CountRunning(const std::optional<std::string>& queue) {
  sqlite::Query q(queue ? st_->count_running_queue : st_->count_running_all);
  if (queue) q.BindText(*queue);
  Result<bool> row = q.Step();
  if (!row.ok()) return row.status();
  return *row ? static_cast<int>(q.Int(0)) : 0;
}

// ---- for tests ----

Result<std::string> SqliteStore::QueryPlan(PlannedQuery query) {
  const char* sql = kNextDueSql;
  switch (query) {
    case PlannedQuery::kFirstReadyByPriority:
      sql = kFirstReadyByPrioritySql;
      break;
    case PlannedQuery::kFirstReadyOldest:
      sql = kFirstReadyOldestSql;
      break;
    case PlannedQuery::kPromoteDue:
      sql = kPromoteDueSql;
      break;
    case PlannedQuery::kNextDue:
      sql = kNextDueSql;
      break;
  }
  Result<sqlite::Stmt> stmt =
      sqlite::Stmt::Prepare(db_, "explain query plan", std::string("EXPLAIN QUERY PLAN ") + sql);
  if (!stmt.ok()) return stmt.status();
  sqlite::Query q(*stmt);
  std::string plan;
  // Columns: id, parent, notused, detail.
  if (Status s = q.ForEach([&] { plan += q.Text(3) + "\n"; }); !s.ok()) return s;
  return plan;
}

}  // namespace tq
