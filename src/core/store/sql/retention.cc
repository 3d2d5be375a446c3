// Time-driven sweeps of the SQL store, each a small batch bounded by `limit` walking one
// partial index: pending tasks whose pending_ttl ran out fail (SPEC 6), succeeded tasks past
// success_retention become expired, and ended tasks past purge_after are deleted (SPEC 2).
#include <algorithm>
#include <string>
#include <vector>

#include "core/store/sql/sql_store.h"
#include "core/store/sql/statements.h"
#include "core/store/sql/task_rows.h"

namespace tq {

Result<std::vector<TaskId>> SqlStore::ExpirePendingTtl(WallMs now, int limit) {
  std::vector<TaskId> ended;
  if (limit <= 0) return ended;
  Status status = Write([&]() -> Status {
    std::vector<TaskId> due;
    {
      sql::Query q(st_->pending_ttl_due);
      Status s = q.BindInt(now).BindInt(limit).ForEach([&] { due.push_back(q.Int(0)); });
      if (!s.ok()) return s;
    }
    // A task failed earlier in the batch as someone's dependent is no longer pending: skipped.
    for (TaskId id : due) {
      Status s = EndPendingInTx(id, TaskState::kFailed, TaskReason::kExpiredPending, now, &ended);
      if (!s.ok()) return s;
    }
    return Status::Ok();
  });
  if (!status.ok()) return status;
  return ended;
}

Result<std::optional<WallMs>> SqlStore::NextPendingTtl() {
  return QueryMin(st_->next_pending_ttl);
}

Result<std::vector<TaskId>> SqlStore::ExpireSucceeded(WallMs cutoff, int limit) {
  std::vector<TaskId> expired;
  if (limit <= 0) return expired;
  Status status = Write([&]() -> Status {
    {
      sql::Query q(st_->succeeded_due);
      Status s = q.BindInt(cutoff).BindInt(limit).ForEach([&] { expired.push_back(q.Int(0)); });
      if (!s.ok()) return s;
    }
    // Dependents are untouched: expired satisfies a dependency as succeeded did.
    for (TaskId id : expired) {
      sql::Query q(st_->expire_task);
      if (Status s = q.BindInt(id).Run(); !s.ok()) return s;
    }
    return Status::Ok();
  });
  if (!status.ok()) return status;
  return expired;
}

Result<std::vector<TaskId>> SqlStore::PurgeEnded(WallMs cutoff, int limit) {
  std::vector<TaskId> purged;
  if (limit <= 0) return purged;
  Status status = Write([&]() -> Status {
    std::vector<std::string> envs;
    {
      sql::Query q(st_->ended_due);
      Status s = q.BindInt(cutoff).BindInt(limit).ForEach([&] {
        purged.push_back(q.Int(0));
        envs.push_back(q.Text(1));
      });
      if (!s.ok()) return s;
    }
    return DeleteTasksInTx(purged, std::move(envs));
  });
  if (!status.ok()) return status;
  return purged;
}

Result<RemovedTasks> SqlStore::RemoveFinished(const std::vector<TaskId>& ids) {
  RemovedTasks removed;
  Status status = Write([&]() -> Status {
    removed = RemovedTasks{};
    std::vector<std::string> envs;
    std::vector<std::pair<TaskId, TaskState>> unmet;  // failed or cancelled: dependents failed
    for (TaskId id : ids) {
      sql::Query q(st_->finished_task);
      auto row = q.BindInt(id).Step();
      if (!row.ok()) return row.status();
      if (!*row) continue;  // not finished, or gone
      removed.ids.push_back(id);
      envs.push_back(q.Text(0));
      removed.output_bytes += q.Int(1);
      if (const std::optional<TaskState> s = StateFromName(q.Text(2)); s && sql::DepFailed(*s))
        unmet.emplace_back(id, *s);
    }
    if (Status s = RefuseLosingFailedDeps(unmet, removed.ids); !s.ok()) return s;
    return DeleteTasksInTx(removed.ids, std::move(envs));
  });
  if (!status.ok()) return status;
  return removed;
}

Status SqlStore::RefuseLosingFailedDeps(const std::vector<std::pair<TaskId, TaskState>>& unmet,
                                        const std::vector<TaskId>& removed) {
  for (const auto& [id, state] : unmet) {
    TaskId dependent = 0;  // the first that stays
    sql::Query q(st_->dependents_of);
    Status read = q.BindInt(id).ForEach([&] {
      const TaskId d = q.Int(0);
      if (dependent == 0 && std::find(removed.begin(), removed.end(), d) == removed.end())
        dependent = d;
    });
    if (!read.ok()) return read;
    if (dependent == 0) continue;
    return Status::Invalid(
        "ids",
        sql::TaskName(id) + " " + StateName(state) + " and " + sql::TaskName(dependent) +
            " waits for it (--after): without it, a retry of task " + std::to_string(dependent) +
            " would run as if it had succeeded; clean both (tq clean " + std::to_string(id) + " " +
            std::to_string(dependent) + "), or retry task " + std::to_string(id) + " first");
  }
  return Status::Ok();
}

Status SqlStore::DeleteTasksInTx(const std::vector<TaskId>& ids, std::vector<std::string> envs) {
  // Attempts, labels and dependency edges go with the row (ON DELETE CASCADE). A pending task
  // never waits for a finished one: succeeded and expired ones no longer count in deps_left, and
  // the dependents of a failed or cancelled one failed with it.
  for (TaskId id : ids) {
    sql::Query q(st_->delete_task);
    if (Status s = q.BindInt(id).Run(); !s.ok()) return s;
  }
  std::sort(envs.begin(), envs.end());
  envs.erase(std::unique(envs.begin(), envs.end()), envs.end());
  for (const std::string& env : envs) {
    if (Status s = DropEnvIfUnused(env); !s.ok()) return s;
  }
  if (ids.empty()) return Status::Ok();
  for (sql::Stmt* sweep : {&st_->drop_unused_envs, &st_->drop_zero_counts}) {
    if (*sweep == nullptr) continue;
    sql::Query q(*sweep);
    if (Status s = q.Run(); !s.ok()) return s;
  }
  sql::Query q(st_->drop_idle_queues);
  return q.Run();
}

Result<std::optional<WallMs>> SqlStore::OldestSucceeded() {
  return QueryMin(st_->oldest_succeeded);
}

Result<std::optional<WallMs>> SqlStore::OldestEnded() {
  return QueryMin(st_->oldest_ended);
}

}  // namespace tq
