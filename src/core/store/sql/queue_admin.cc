// The SQL store's answers for `tq list` and `tq queue delete`: what a pending task still waits
// for, and forgetting a queue nothing pending or running uses.
#include "core/model/quote.h"
#include "core/store/sql/sql_store.h"
#include "core/store/sql/statements.h"

namespace tq {

Result<std::vector<TaskId>> SqlStore::UnfinishedDeps(TaskId id) {
  std::vector<TaskId> deps;
  sql::Query q(st_->unfinished_deps);
  Status s = q.BindInt(id).ForEach([&] { deps.push_back(q.Int(0)); });
  if (!s.ok()) return s;
  return deps;
}

Status SqlStore::DeleteQueue(const std::string& queue) {
  return Write([&]() -> Status {
    {
      sql::Query q(st_->queue_busy);
      Result<bool> row = q.BindText(queue).Step();
      if (!row.ok()) return row.status();
      if (*row)
        return Status::Invalid("name", "queue " + Quote(queue) +
                                           " still has pending or running tasks: cancel them or "
                                           "let them end first");
    }
    sql::Query q(st_->delete_queue);
    if (Status s = q.BindText(queue).Run(); !s.ok()) return s;
    if (db_->Changes() == 0)
      return Status(ErrorCode::kNotFound, "name", "queue " + Quote(queue) + " does not exist");
    return Status::Ok();
  });
}

}  // namespace tq
