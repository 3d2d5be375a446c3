// The output of ended attempts kept in the store for every host (SPEC 12): the host that ran an
// attempt keeps its files and saves a copy here, so `tq logs` works through any host.
#include "core/store/sql/sql_store.h"
#include "core/store/sql/statements.h"
#include "core/store/sql/task_rows.h"

namespace tq {

Status SqlStore::SaveOutput(TaskId id, int attempt, const StoredOutput& output) {
  return WriteOrRefuse([&] { return SaveOutputInTx(id, attempt, output); });
}

Status SqlStore::SaveOutputInTx(TaskId id, int attempt, const StoredOutput& output) {
  sql::Query q(st_->save_output);
  q.BindInt(id).BindInt(attempt).BindBlob(output.stdout_bytes).BindBlob(output.stderr_bytes);
  if (Status s = q.BindBlob(output.order).Run(); !s.ok()) return s;
  if (db_->Changes() == 0)  // refused: it inserted nothing
    return Status(ErrorCode::kNotFound, "attempt",
                  sql::TaskName(id) + " has no attempt " + std::to_string(attempt));
  return Status::Ok();
}

Result<std::optional<StoredOutput>> SqlStore::SavedOutput(TaskId id, int attempt) {
  sql::Query q(st_->saved_output);
  Result<bool> row = q.BindInt(id).BindInt(attempt).Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<StoredOutput>();
  return std::optional<StoredOutput>(StoredOutput{q.Blob(0), q.Blob(1), q.Blob(2)});
}

}  // namespace tq
