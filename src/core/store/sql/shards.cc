// Sharded work in the SQL store (SPEC 12): a group's id taken from the tasks' sequence, its
// shards inserted in one transaction, and a group's shards read back on their index.
#include "core/store/sql/sql_store.h"
#include "core/store/sql/statements.h"
#include "core/store/sql/stored_bytes.h"
#include "core/store/sql/task_rows.h"

namespace tq {

Result<ShardedSubmit> SqlStore::SubmitShards(const Owner& owner, const TaskSpec& spec, int total,
                                             WallMs now) {
  if (spec.key)
    return Status::Invalid("key", "key: sharded work cannot carry a key; submit it without one");
  if (Status s = CheckShardCount("shards", total); !s.ok()) return s;
  if (Status s = sql::CheckBytes(spec); !s.ok()) return s;
  ShardedSubmit out;
  Status status = Write([&] { return InsertShardsInTx(owner, spec, total, now, &out); });
  if (!status.ok()) return status;
  return out;
}

Status SqlStore::InsertShardsInTx(const Owner& owner, const TaskSpec& spec, int total, WallMs now,
                                  ShardedSubmit* out) {
  *out = ShardedSubmit{};
  // The first statement that gives a row gives the id (in SQLite, sqlite_sequence has the
  // tasks' row once any task was inserted; before, the group is id 1).
  for (sql::Stmt* take : {&st_->next_task_id, &st_->first_task_id}) {
    sql::Query q(*take);
    Result<bool> row = q.Step();
    if (!row.ok()) return row.status();
    if (*row) {
      out->group = q.Int(0);
      break;
    }
  }
  TaskSpec shard = spec;
  for (int i = 0; i < total; ++i) {
    shard.shard = ShardOf{out->group, i, total};
    bool new_queue = false;
    Result<TaskId> id = InsertInTx(owner, shard, now, &out->ended, &new_queue);
    if (!id.ok()) return id.status();
    out->new_queue = out->new_queue || new_queue;
    out->ids.push_back(*id);
  }
  return NoteJobTask(spec.job, out->group);
}

Result<std::vector<ShardState>> SqlStore::ShardsOf(TaskId group) {
  std::vector<ShardState> shards;
  bool corrupt = false;
  sql::Query q(st_->shards_of);
  Status s = q.BindInt(group).ForEach([&] {
    const std::optional<TaskState> state = StateFromName(q.Text(1));
    corrupt = corrupt || !state;
    shards.push_back({q.Int(0), state.value_or(TaskState::kPending)});
  });
  if (!s.ok()) return s;
  if (corrupt) return sql::StoreError("read group " + std::to_string(group), "corrupt state");
  return shards;
}

}  // namespace tq
