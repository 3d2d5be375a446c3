// The SQL store's edits of pending tasks: `tq update` (UpdatePending), `tq hold` and
// `tq release` (SetHeld).
#include "core/store/sql/sql_store.h"
#include "core/store/sql/statements.h"
#include "core/store/sql/task_rows.h"

namespace tq {

using sql::TaskName;

Result<bool> SqlStore::UpdatePending(TaskId id, const TaskChanges& c, WallMs now) {
  bool new_queue = false;
  if (c.queue) PrepareQueue(*c.queue);
  Status status = Write([&]() -> Status {
    {
      sql::Query q(st_->task_env_hash);
      Result<bool> row = q.BindInt(id).Step();
      if (!row.ok()) return row.status();
      if (!*row) return Status::NotFound(TaskName(id) + " not found");
      if (q.Text(1) != StateName(TaskState::kPending))
        return Status::Invalid("state", "state: " + TaskName(id) + " is " + q.Text(1) +
                                            "; only a pending task can be changed");
    }
    if (c.queue) {
      if (Status s = HoldQueue(*c.queue, &new_queue); !s.ok()) return s;
    }
    {
      sql::Query q(st_->update_task);
      q.BindInt(id).BindOptInt(c.priority).BindOptText(c.queue).BindOptInt(c.not_before);
      q.BindOptInt(c.timeout_ms).BindOptInt(c.retries).BindInt(now);
      if (Status s = q.Run(); !s.ok()) return s;
    }
    if (c.labels) {
      sql::Query drop(st_->delete_labels);
      if (Status s = drop.BindInt(id).Run(); !s.ok()) return s;
      for (size_t pos = 0; pos < c.labels->size(); ++pos) {
        sql::Query q(st_->insert_label);
        q.BindInt(id).BindInt(static_cast<int64_t>(pos)).BindText((*c.labels)[pos]);
        if (Status s = q.Run(); !s.ok()) return s;
      }
    }
    return Status::Ok();
  });
  SettlePrepared(!status.ok());
  if (!status.ok()) return status;
  return new_queue;
}

Result<std::vector<TaskId>> SqlStore::SetHeld(const std::vector<TaskId>& ids, bool hold,
                                              WallMs now) {
  std::vector<TaskId> changed;
  Status status = Write([&]() -> Status {
    for (TaskId id : ids) {
      if (hold) {
        sql::Query q(st_->hold_task);
        if (Status s = q.BindInt(id).Run(); !s.ok()) return s;
        if (db_->Changes() > 0) changed.push_back(id);
        continue;
      }
      // Released, an exclusive run of a job stays held by the job while another run is in
      // flight; a running task (its next stage held) is simply no longer held.
      JobRun run;
      {
        sql::Query q(st_->held_run);
        Result<bool> row = q.BindInt(id).Step();
        if (!row.ok()) return row.status();
        if (!*row) continue;  // not unfinished and held by a user
        if (!q.IsNull(0) && q.Text(2) == StateName(TaskState::kPending)) run.job = q.Text(0);
        run.exclusive = q.Int(1) != 0;
        if (!q.IsNull(3)) run.group = q.Int(3);
      }
      Result<bool> job_holds = MustHold(run, id);
      if (!job_holds.ok()) return job_holds.status();
      sql::Query q(st_->release_task);
      q.BindInt(id).BindInt(*job_holds ? sql::kHeldByJob : 0).BindInt(now);
      if (Status s = q.Run(); !s.ok()) return s;
      changed.push_back(id);
    }
    return Status::Ok();
  });
  if (!status.ok()) return status;
  return changed;
}

}  // namespace tq
