// The output of ended attempts kept in the store for every host (SPEC 12): the host that ran an
// attempt keeps its files and saves a copy here, so `tq logs` works through any host.
#include "core/store/sql/sql_store.h"
#include "core/store/sql/statements.h"
#include "core/store/sql/task_rows.h"

namespace tq {

Status SqlStore::SaveOutput(TaskId id, int attempt, const StoredOutput& output) {
  return Write([&]() -> Status {
    sql::Query exists(st_->attempt_exists);
    Result<bool> found = exists.BindInt(id).BindInt(attempt).Step();
    if (!found.ok()) return found.status();
    if (!*found)
      return Status(ErrorCode::kNotFound, "attempt",
                    sql::TaskName(id) + " has no attempt " + std::to_string(attempt));
    sql::Query q(st_->save_output);
    q.BindInt(id).BindInt(attempt).BindBlob(output.stdout_bytes).BindBlob(output.stderr_bytes);
    return q.BindBlob(output.order).Run();
  });
}

Result<std::optional<StoredOutput>> SqlStore::SavedOutput(TaskId id, int attempt) {
  sql::Query q(st_->saved_output);
  Result<bool> row = q.BindInt(id).BindInt(attempt).Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<StoredOutput>();
  return std::optional<StoredOutput>(StoredOutput{q.Blob(0), q.Blob(1), q.Blob(2)});
}

}  // namespace tq
