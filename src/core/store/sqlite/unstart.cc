// Undoing an attempt that never ran (SPEC 6): a daemon that died between opening the attempt and
// creating its supervisor's status record leaves an attempt no process ever belonged to. It is
// not lost; the task goes back to the ready set without using a retry. Rare (once per such crash
// at start-up), so the statements are prepared here rather than kept.
#include <string>

#include "core/store/sqlite/sqlite_store.h"
#include "core/store/sqlite/statements.h"
#include "core/store/sqlite/task_rows.h"

namespace tq {

Status SqliteStore::UnstartAttempt(TaskId id, int attempt) {
  return Write([&]() -> Status {
    JobRun run;
    {
      sqlite::Query q(st_->task_run_state);
      Result<bool> row = q.BindInt(id).Step();
      if (!row.ok()) return row.status();
      if (!*row) return Status::NotFound(sqlite::TaskName(id) + " not found");
      if (q.Text(0) != StateName(TaskState::kRunning) || q.Int(1) != attempt) {
        return Status::Invalid(
            "attempt", sqlite::TaskName(id) + " is not running attempt " + std::to_string(attempt));
      }
      if (!q.IsNull(2)) run.job = q.Text(2);
      run.exclusive = q.Int(3) != 0;
      if (!q.IsNull(4)) run.group = q.Int(4);
    }
    Result<sqlite::Stmt> drop =
        sqlite::Stmt::Prepare(db_, "undo attempt",
                              "DELETE FROM attempts WHERE task_id = ?1 AND number = ?2 "
                              "RETURNING started");
    if (!drop.ok()) return drop.status();
    WallMs started = 0;
    {
      sqlite::Query q(*drop);
      Result<bool> row = q.BindInt(id).BindInt(attempt).Step();
      if (!row.ok()) return row.status();
      if (*row) started = q.Int(0);
      if (Status s = q.Run(); !s.ok()) return s;
    }
    // An exclusive run goes back held while another run of its job is in flight; a user's hold
    // (of a running task's next stage) stays.
    Result<bool> held = MustHold(run, id);
    if (!held.ok()) return held.status();
    Result<sqlite::Stmt> back =
        sqlite::Stmt::Prepare(db_, "return task to pending",
                              "UPDATE tasks SET state = 'pending', ready = iif(held = 2, 0, ?2), "
                              "held = iif(held = 2, 2, ?3), "
                              "attempt_count = attempt_count - 1 WHERE id = ?1");
    if (!back.ok()) return back.status();
    sqlite::Query q(*back);
    if (Status s = q.BindInt(id).BindInt(*held ? 0 : 1).BindInt(*held ? 1 : 0).Run(); !s.ok()) {
      return s;
    }
    // The runs this attempt held are free again; those due when it started are ready.
    return run.job ? ReleaseRuns(*run.job, started) : Status::Ok();
  });
}

}  // namespace tq
