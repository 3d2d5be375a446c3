// Submitting to the SQL store: Insert, the keyed Submit of SPEC 3 (the pure DecideKeyedSubmit
// applied inside one write transaction, so racing submits of one key and version end
// with exactly one task), the keyed replace, and the all-or-nothing SubmitBatch.
#include <algorithm>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/policy/submit_key.h"
#include "core/store/sql/sql_store.h"
#include "core/store/sql/statements.h"
#include "core/store/sql/stored_bytes.h"
#include "core/store/sql/task_rows.h"

namespace tq {

namespace {

using sql::TaskName;

constexpr uint64_t kMaxEnvSalt = 16;  // collisions of a 64-bit hash: one salt is already rare

// spec.after without repeats, in first-seen order.
std::vector<TaskId> DistinctDeps(const std::vector<TaskId>& after) {
  std::vector<TaskId> deps;
  for (TaskId dep : after) {
    if (std::find(deps.begin(), deps.end(), dep) == deps.end()) deps.push_back(dep);
  }
  return deps;
}

// `s` with its message prefixed by the batch entry it belongs to (1-based), its fault kept.
Status ForEntry(size_t index, const Status& s) {
  return Status(s.code(), s.field(), "entry " + std::to_string(index + 1) + ": " + s.message())
      .WithFault(s.fault());
}

}  // namespace

// ---- pieces, inside a transaction ----

Status SqlStore::CheckDeps(const Owner& owner, const std::vector<TaskId>& deps, int* deps_left,
                           bool* dep_failed) {
  *deps_left = 0;
  *dep_failed = false;
  for (TaskId dep : deps) {
    sql::Query q(st_->dep_owner_state);
    Result<bool> row = q.BindInt(dep).Step();
    if (!row.ok()) return row.status();
    // Another owner's task answers exactly like a missing one, so ids cannot be probed.
    if (!*row || static_cast<uint32_t>(q.Int(0)) != owner.uid) {
      return Status(ErrorCode::kNotFound, "after", TaskName(dep) + " not found");
    }
    std::optional<TaskState> state = StateFromName(q.Text(1));
    if (!state) return sql::StoreError("read " + TaskName(dep), "corrupt state");
    if (!sql::DepDone(*state)) ++*deps_left;
    if (sql::DepFailed(*state)) *dep_failed = true;
  }
  return Status::Ok();
}

Status SqlStore::CheckNoCycle(TaskId id, const std::vector<TaskId>& deps) {
  // Breadth-first through task -> dependency edges, remembering which of `deps` led there.
  std::vector<std::pair<TaskId, TaskId>> frontier;  // (task, the dep it was reached from)
  std::unordered_set<TaskId> seen;
  for (TaskId dep : deps) {
    if (seen.insert(dep).second) frontier.emplace_back(dep, dep);
  }
  for (size_t i = 0; i < frontier.size(); ++i) {
    const TaskId task = frontier[i].first;
    const TaskId origin = frontier[i].second;
    if (task == id) {
      return Status::Invalid("after", origin == id ? TaskName(id) + " cannot run after itself"
                                                   : TaskName(origin) + " already waits for " +
                                                         TaskName(id) + ": a cycle");
    }
    sql::Query q(st_->deps_of);
    Status s = q.BindInt(task).ForEach([&] {
      TaskId next = q.Int(0);
      if (seen.insert(next).second) frontier.emplace_back(next, origin);
    });
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Result<std::string> SqlStore::StoreEnv(const std::string& data) {
  for (uint64_t salt = 0, rereads = 0; salt <= kMaxEnvSalt && rereads <= kMaxEnvSalt;) {
    std::string key = sql::EnvKey(data, salt);
    {
      sql::Query q(st_->env_by_hash);
      Result<bool> row = q.BindText(key).Step();
      if (!row.ok()) return row.status();
      if (*row) {
        if (q.Blob(0) == data) return key;
        ++salt;  // a collision: try the next salt
        continue;
      }
    }
    sql::Query insert(st_->insert_env);
    if (Status s = insert.BindText(key).BindBlob(data).Run(); !s.ok()) return s;
    if (db_->Changes() > 0) return key;
    ++rereads;  // another host stored this key since the read (PostgreSQL): read it again
  }
  return sql::StoreError("insert env", "too many hash collisions");
}

bool SqlStore::Preparing() const {
  return dialect_ != sql::Dialect::kSqlite && !db_->InTransaction();
}

void SqlStore::PrepareQueue(const std::string& name) {
  if (!Preparing()) return;
  if (shared_known_.size() >= kMaxKnownShared) {
    shared_known_.clear();
    queues_made_.clear();  // at worst a submit is not told that it made its queue
  }
  if (!shared_known_.insert("queue/" + name).second) return;
  sql::Query q(st_->insert_queue);
  if (!q.BindText(name).Run().ok()) {
    shared_known_.erase("queue/" + name);
    return;
  }
  if (db_->Changes() == 0) return;
  queues_made_.insert(name);
  prepared_queues_.push_back(name);
}

Status SqlStore::HoldQueue(const std::string& name, bool* made) {
  sql::Query q(st_->insert_queue);
  if (Status s = q.BindText(name).Run(); !s.ok()) return s;
  const bool made_before = queues_made_.erase(name) > 0;
  *made = db_->Changes() > 0 || made_before;
  return Status::Ok();
}

void SqlStore::PrepareInsert(const std::string& queue, const std::vector<std::string>& env) {
  if (!Preparing()) return;
  PrepareQueue(queue);
  const std::string data = sql::EncodeList(env);
  const std::string key = sql::EnvKey(data);
  if (!shared_known_.insert("env/" + key).second) return;
  sql::Query q(st_->insert_env);
  if (!q.BindText(key).BindBlob(data).Run().ok())
    shared_known_.erase("env/" + key);
  else if (db_->Changes() > 0)
    prepared_envs_.push_back(key);
}

void SqlStore::SettlePrepared(bool refused) {
  std::vector<std::string> queues = std::exchange(prepared_queues_, {});
  std::vector<std::string> envs = std::exchange(prepared_envs_, {});
  if (!refused || (queues.empty() && envs.empty())) return;
  // Inside WriteTogether a task of the same transaction may use them: looked at once committed.
  AfterCommit(
      [this, queues = std::move(queues), envs = std::move(envs)] { DropPrepared(queues, envs); });
}

void SqlStore::DropPrepared(const std::vector<std::string>& queues,
                            const std::vector<std::string>& envs) {
  // Best effort: what stays (a failed statement, a row another host holds) goes with a purge.
  for (const std::string& key : envs)
    if (DropEnvIfUnused(key).ok() && db_->Changes() > 0) shared_known_.erase("env/" + key);
  for (const std::string& name : queues) {
    sql::Query q(st_->drop_queue_if_idle);
    if (!q.BindText(name).Run().ok() || db_->Changes() == 0) continue;
    shared_known_.erase("queue/" + name);
    queues_made_.erase(name);
  }
}

Status SqlStore::DropEnvIfUnused(const std::string& key) {
  sql::Query q(st_->drop_env_if_unused);
  return q.BindText(key).Run();
}

Status SqlStore::InsertRows(TaskId id, const TaskSpec& spec, const std::vector<TaskId>& deps) {
  for (size_t pos = 0; pos < spec.stages.size(); ++pos) {
    sql::Query q(st_->insert_stage);
    sql::BindStage(q, id, pos, spec.stages[pos]);
    if (Status s = q.Run(); !s.ok()) return s;
  }
  for (size_t pos = 0; pos < spec.labels.size(); ++pos) {
    sql::Query q(st_->insert_label);
    q.BindInt(id).BindInt(static_cast<int64_t>(pos)).BindText(spec.labels[pos]);
    if (Status s = q.Run(); !s.ok()) return s;
  }
  for (TaskId dep : deps) {
    sql::Query q(st_->insert_dep);
    if (Status s = q.BindInt(id).BindInt(dep).Run(); !s.ok()) return s;
  }
  return Status::Ok();
}

Result<TaskId> SqlStore::InsertInTx(const Owner& owner, const TaskSpec& spec, WallMs now,
                                    std::vector<TaskId>* ended, bool* new_queue,
                                    BatchShared* batch) {
  const std::vector<TaskId> deps = DistinctDeps(spec.after);
  int deps_left = 0;
  bool dep_failed = false;
  if (Status s = CheckDeps(owner, deps, &deps_left, &dep_failed); !s.ok()) return s;
  const std::string env = sql::EncodeList(spec.env);
  std::optional<std::string> stored_env;  // by the batch already
  if (batch != nullptr)
    if (auto it = batch->env_keys.find(env); it != batch->env_keys.end()) stored_env = it->second;
  Result<std::string> env_key = stored_env ? Result<std::string>(*stored_env) : StoreEnv(env);
  if (!env_key.ok()) return env_key.status();
  if (batch != nullptr) batch->env_keys.emplace(env, *env_key);
  if (batch == nullptr || batch->queues.insert(spec.queue).second) {
    bool made = false;
    if (Status s = HoldQueue(spec.queue, &made); !s.ok()) return s;
    if (new_queue != nullptr) *new_queue = made;
  }
  Result<bool> held =
      MustHold(JobRun{spec.job, spec.job_exclusive, spec.shard ? spec.shard->group : 0}, 0);
  if (!held.ok()) return held.status();
  TaskId id = 0;
  {
    const bool ready = deps_left == 0 && spec.not_before <= now && !*held;
    sql::Query q(st_->insert_task);
    sql::BindRequest(q, spec, *env_key);
    q.BindInt(owner.uid).BindInt(owner.gid).BindText(owner.name).BindInt(now);
    q.BindOptInt(sql::PendingDeadline(spec, now)).BindInt(ready ? 1 : 0).BindInt(deps_left);
    Result<bool> row = q.BindInt(*held ? 1 : 0).Step();
    if (!row.ok()) return row.status();
    if (!*row) return sql::StoreError("insert task", "no id returned");
    id = q.Int(0);
    if (Status s = q.Run(); !s.ok()) return s;  // finish the statement
  }
  if (Status s = InsertRows(id, spec, deps); !s.ok()) return s;
  if (Status s = NoteJobTask(spec.job, id); !s.ok()) return s;
  if (dep_failed) {
    Status s = EndPendingInTx(id, TaskState::kFailed, TaskReason::kDependencyFailed, now, ended);
    if (!s.ok()) return s;
  }
  return id;
}

Status SqlStore::ReplaceInTx(TaskId id, const Owner& owner, const TaskSpec& spec, WallMs now,
                             std::vector<TaskId>* ended, bool* new_queue) {
  const std::vector<TaskId> deps = DistinctDeps(spec.after);
  int deps_left = 0;
  bool dep_failed = false;
  if (Status s = CheckDeps(owner, deps, &deps_left, &dep_failed); !s.ok()) return s;
  if (Status s = CheckNoCycle(id, deps); !s.ok()) return s;
  std::string old_env;
  std::optional<TaskState> old_state;
  bool user_held = false;  // a hold of `tq hold` outlasts the replace
  {
    sql::Query q(st_->task_env_hash);
    Result<bool> row = q.BindInt(id).Step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::NotFound(TaskName(id) + " not found");
    old_env = q.Text(0);
    old_state = StateFromName(q.Text(1));
    if (!old_state) return sql::StoreError("read " + TaskName(id), "corrupt state");
    user_held = q.Int(2) == sql::kHeldByUser;
  }
  Result<std::string> env_key = StoreEnv(sql::EncodeList(spec.env));
  if (!env_key.ok()) return env_key.status();
  {
    bool made = false;
    if (Status s = HoldQueue(spec.queue, &made); !s.ok()) return s;
    if (new_queue != nullptr) *new_queue = made;
  }
  Result<bool> held = MustHold(JobRun{spec.job, spec.job_exclusive, 0}, id);  // never a shard
  if (!held.ok()) return held.status();
  {
    const bool ready = deps_left == 0 && spec.not_before <= now && !*held && !user_held;
    const int held_value = user_held ? sql::kHeldByUser : *held ? sql::kHeldByJob : 0;
    sql::Query q(st_->replace_task);
    sql::BindRequest(q, spec, *env_key);
    q.BindInt(now).BindOptInt(sql::PendingDeadline(spec, now)).BindInt(ready ? 1 : 0);
    q.BindInt(deps_left).BindInt(id).BindInt(held_value);
    if (Status s = q.Run(); !s.ok()) return s;
  }
  if (Status s = NoteJobTask(spec.job, id); !s.ok()) return s;
  for (sql::Stmt* stmt :
       {&st_->delete_attempts, &st_->delete_labels, &st_->delete_deps, &st_->delete_stages}) {
    sql::Query q(*stmt);
    if (Status s = q.BindInt(id).Run(); !s.ok()) return s;
  }
  if (Status s = InsertRows(id, spec, deps); !s.ok()) return s;
  if (sql::DepDone(*old_state)) {
    // An expired task runs again: whatever still waits on it waits for the new run too.
    sql::Query q(st_->reblock_dependents);
    if (Status s = q.BindInt(id).Run(); !s.ok()) return s;
  }
  if (old_env != *env_key) {
    if (Status s = DropEnvIfUnused(old_env); !s.ok()) return s;
  }
  if (dep_failed) {
    return EndPendingInTx(id, TaskState::kFailed, TaskReason::kDependencyFailed, now, ended);
  }
  return Status::Ok();
}

Status SqlStore::SubmitInTx(const Owner& owner, const TaskSpec& spec, WallMs now,
                            bool supersede_running, SubmitOutcome* out) {
  if (!spec.key) {
    Result<TaskId> id = InsertInTx(owner, spec, now, &out->ended, &out->new_queue);
    if (!id.ok()) return id.status();
    out->id = *id;
    out->inserted = true;
    return Status::Ok();
  }
  if (st_->lock_key != nullptr) {  // another host's submit of this key waits for this one
    sql::Query q(st_->lock_key);
    if (Status s = q.BindInt(owner.uid).BindText(*spec.key).Run(); !s.ok()) return s;
  }
  std::vector<KeyedTask> same_key;
  {
    sql::Query q(st_->key_lookup);
    Status s = q.BindInt(owner.uid).BindText(*spec.key).ForEach([&]() -> Status {
      std::optional<TaskState> state = StateFromName(q.Text(2));
      if (!state) return sql::StoreError("read " + TaskName(q.Int(0)), "corrupt state");
      same_key.push_back(KeyedTask{q.Int(0), q.Int(1), *state});
      return Status::Ok();
    });
    if (!s.ok()) return s;
  }
  const KeyDecision decision = DecideKeyedSubmit(same_key, spec.version, supersede_running);
  switch (decision.action) {
    case KeyAction::kRefuseNewer:
      out->id = decision.existing;
      out->refused_newer = true;
      return Status::Ok();
    case KeyAction::kReturnExisting:
      out->id = decision.existing;
      return Status::Ok();
    case KeyAction::kReplace:
      if (Status s = ReplaceInTx(decision.existing, owner, spec, now, &out->ended, &out->new_queue);
          !s.ok()) {
        return s;
      }
      out->id = decision.existing;
      break;
    case KeyAction::kInsert: {
      Result<TaskId> id = InsertInTx(owner, spec, now, &out->ended, &out->new_queue);
      if (!id.ok()) return id.status();
      out->id = *id;
      break;
    }
  }
  out->inserted = true;
  for (TaskId older : decision.cancel_pending) {
    Status s =
        EndPendingInTx(older, TaskState::kCancelled, TaskReason::kSuperseded, now, &out->ended);
    if (!s.ok()) return s;
  }
  out->to_terminate = decision.cancel_running;
  return Status::Ok();
}

// ---- the interface ----

Result<TaskId> SqlStore::Insert(const Owner& owner, const TaskSpec& spec, WallMs now) {
  if (Status s = sql::CheckBytes(spec); !s.ok()) return s;
  PrepareInsert(spec.queue, spec.env);
  TaskId id = 0;
  Status status = Write([&]() -> Status {
    std::vector<TaskId> ended;
    Result<TaskId> inserted = InsertInTx(owner, spec, now, &ended);
    if (!inserted.ok()) return inserted.status();
    id = *inserted;
    return Status::Ok();
  });
  SettlePrepared(!status.ok());
  if (!status.ok()) return status;
  return id;
}

Result<SubmitOutcome> SqlStore::Submit(const Owner& owner, const TaskSpec& spec, WallMs now,
                                       bool supersede_running) {
  if (Status s = sql::CheckBytes(spec); !s.ok()) return s;
  PrepareInsert(spec.queue, spec.env);
  SubmitOutcome out;
  Status status = Write([&]() { return SubmitInTx(owner, spec, now, supersede_running, &out); });
  SettlePrepared(!status.ok());
  if (!status.ok()) return status;
  return out;
}

Status SqlStore::SubmitInGroup(const SubmitItem& item, WallMs now, Result<SubmitOutcome>* result) {
  if (Status s = db_->Savepoint(); !s.ok()) return s;
  SubmitOutcome out;
  if (Status s = SubmitInTx(item.owner, item.spec, now, item.supersede_running, &out); !s.ok()) {
    // The database may have given the whole transaction up (a full disk, an I/O error):
    // then every request before this one is gone too, and nothing may run in autocommit.
    if (!db_->InTransaction()) return s;
    if (Status r = db_->RollbackToSavepoint(); !r.ok()) return r;
    *result = s;
  } else {
    *result = std::move(out);
  }
  return db_->ReleaseSavepoint();
}

std::vector<Result<SubmitOutcome>> SqlStore::SubmitGroup(const std::vector<SubmitItem>& items,
                                                         WallMs now) {
  auto all = [&](const Status& s) { return std::vector<Result<SubmitOutcome>>(items.size(), s); };
  std::vector<Result<SubmitOutcome>> results = [&] {
    std::vector<Result<SubmitOutcome>> results(items.size(), Status::Internal("not submitted"));
    // Inside WriteTogether the group is part of that transaction, which commits it.
    sql::Transaction tx(*db_);
    if (together_ && !db_->InTransaction())
      return all(Status(ErrorCode::kInternal, "", "the shared transaction was rolled back"));
    if (Status s = together_ ? Status::Ok() : tx.Begin(); !s.ok()) return all(s);
    for (size_t i = 0; i < items.size(); ++i) {
      if (Status s = sql::CheckBytes(items[i].spec); !s.ok()) {
        results[i] = s;
        continue;
      }
      // The group's transaction is no longer sound: refuse all of it (tx rolls back the rest).
      if (Status s = SubmitInGroup(items[i], now, &results[i]); !s.ok()) return all(s);
    }
    if (Status s = together_ ? Status::Ok() : tx.Commit(); !s.ok()) return all(s);
    return results;
  }();
  SettlePrepared(std::any_of(results.begin(), results.end(),
                             [](const Result<SubmitOutcome>& r) { return !r.ok(); }));
  return results;
}

Result<std::vector<TaskId>> SqlStore::SubmitBatch(const Owner& owner,
                                                  const std::vector<TaskSpec>& specs, WallMs now) {
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].key) {
      return ForEntry(i, Status::Invalid("key",
                                         "a batch cannot carry keys; submit keyed tasks "
                                         "one at a time"));
    }
    if (Status s = sql::CheckBytes(specs[i]); !s.ok()) return ForEntry(i, s);
  }
  for (size_t i = 0; i < specs.size(); ++i)  // a run of entries alike is prepared once
    if (i == 0 || specs[i].queue != specs[i - 1].queue || specs[i].env != specs[i - 1].env)
      PrepareInsert(specs[i].queue, specs[i].env);
  std::vector<TaskId> ids;
  Status status = Write([&]() -> Status {
    ids.reserve(specs.size());
    std::vector<TaskId> ended;  // dependency-failed at once: nobody can wait on them yet
    BatchShared shared;         // the batch is one transaction: what it stored stays stored
    for (size_t i = 0; i < specs.size(); ++i) {
      Result<TaskId> id = InsertInTx(owner, specs[i], now, &ended, nullptr, &shared);
      if (!id.ok()) return ForEntry(i, id.status());
      ids.push_back(*id);
    }
    return Status::Ok();
  });
  SettlePrepared(!status.ok());
  if (!status.ok()) return status;
  return ids;
}

}  // namespace tq
