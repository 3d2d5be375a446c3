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
    {
      sqlite::Query q(st_->task_run_state);
      Result<bool> row = q.BindInt(id).Step();
      if (!row.ok()) return row.status();
      if (!*row) return Status::NotFound(sqlite::TaskName(id) + " not found");
      if (q.Text(0) != StateName(TaskState::kRunning) || q.Int(1) != attempt) {
        return Status::Invalid(
            "attempt", sqlite::TaskName(id) + " is not running attempt " + std::to_string(attempt));
      }
    }
    Result<sqlite::Stmt> drop = sqlite::Stmt::Prepare(
        db_, "undo attempt", "DELETE FROM attempts WHERE task_id = ?1 AND number = ?2");
    if (!drop.ok()) return drop.status();
    if (Status s = sqlite::Query(*drop).BindInt(id).BindInt(attempt).Run(); !s.ok()) return s;
    Result<sqlite::Stmt> back = sqlite::Stmt::Prepare(
        db_, "return task to pending",
        "UPDATE tasks SET state = 'pending', ready = 1, attempt_count = attempt_count - 1 "
        "WHERE id = ?1");
    if (!back.ok()) return back.status();
    return sqlite::Query(*back).BindInt(id).Run();
  });
}

}  // namespace tq
