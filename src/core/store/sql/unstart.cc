// Undoing an attempt that never ran (SPEC 6): a daemon that died between opening the attempt and
// creating its supervisor's status record leaves an attempt no process ever belonged to. It is
// not lost; the task goes back to the ready set without using a retry. Rare (once per such crash
// at start-up), so the statements are prepared here rather than kept.
#include <string>

#include "core/store/sql/sql_store.h"
#include "core/store/sql/statements.h"
#include "core/store/sql/task_rows.h"

namespace tq {

Status SqlStore::UnstartAttempt(TaskId id, int attempt, WallMs not_before) {
  return Write([&]() -> Status {
    JobRun run;
    {
      sql::Query q(st_->task_run_state);
      Result<bool> row = q.BindInt(id).Step();
      if (!row.ok()) return row.status();
      if (!*row) return Status::NotFound(sql::TaskName(id) + " not found");
      if (q.Text(0) != StateName(TaskState::kRunning) || q.Int(1) != attempt) {
        return Status::Invalid(
            "attempt", sql::TaskName(id) + " is not running attempt " + std::to_string(attempt));
      }
      if (!q.IsNull(2)) run.job = q.Text(2);
      run.exclusive = q.Int(3) != 0;
      if (!q.IsNull(4)) run.group = q.Int(4);
    }
    Result<sql::Stmt> drop =
        db_->Prepare("undo attempt",
                     "DELETE FROM attempts WHERE task_id = $1 AND number = $2 RETURNING started");
    if (!drop.ok()) return drop.status();
    WallMs started = 0;
    {
      sql::Query q(*drop);
      Result<bool> row = q.BindInt(id).BindInt(attempt).Step();
      if (!row.ok()) return row.status();
      if (*row) started = q.Int(0);
      if (Status s = q.Run(); !s.ok()) return s;
    }
    // An exclusive run goes back held while another run of its job is in flight; a user's hold
    // (of a running task's next stage) stays. One told to wait is delayed: PromoteDue makes it
    // ready when due.
    Result<bool> held = MustHold(run, id);
    if (!held.ok()) return held.status();
    Result<sql::Stmt> back =
        db_->Prepare("return task to pending",
                     "UPDATE tasks SET state = 'pending', "
                     "ready = CASE WHEN held = 2 THEN 0 ELSE $2 END, "
                     "held = CASE WHEN held = 2 THEN 2 ELSE $3 END, "
                     "not_before = CASE WHEN $4 > not_before THEN $4 ELSE not_before END, "
                     "attempt_count = attempt_count - 1 WHERE id = $1");
    if (!back.ok()) return back.status();
    sql::Query q(*back);
    const bool ready = !*held && not_before == 0;
    if (Status s =
            q.BindInt(id).BindInt(ready ? 1 : 0).BindInt(*held ? 1 : 0).BindInt(not_before).Run();
        !s.ok()) {
      return s;
    }
    // The runs this attempt held are free again; those due when it started are ready.
    return run.job ? ReleaseRuns(*run.job, started) : Status::Ok();
  });
}

}  // namespace tq
