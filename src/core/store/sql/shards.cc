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
  PrepareInsert(spec.queue, spec.env);
  ShardedSubmit out;
  Status status = Write([&] { return InsertShardsInTx(owner, spec, total, now, &out); });
  SettlePrepared(!status.ok());
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
    shards.push_back({q.Int(0), state.value_or(TaskState::kPending), q.Text(2)});
  });
  if (!s.ok()) return s;
  if (corrupt) return sql::StoreError("read group " + std::to_string(group), "corrupt state");
  return shards;
}

Result<bool> SqlStore::ClaimGroupEnd(TaskId group) {
  bool claimed = false;
  Status s = Write([&]() -> Status {  // one writer at a time: one of the hosts claims each end
    TaskId first = 0;
    int64_t told = 0, open = 0, last_end = 0;
    {
      sql::Query q(st_->group_end);
      Result<bool> row = q.BindInt(group).Step();
      if (!row.ok()) return row.status();
      if (!*row) return Status::Ok();  // no shard of it is held
      first = q.Int(0);
      told = q.Int(1);
      open = q.Int(2);
      last_end = q.Int(3);
    }
    // The end is named by its latest `finished`, plus one (0 is "none told"): a shard that
    // ends again after a retry makes a later one.
    const int64_t end = last_end + 1;
    if (open > 0 || told == end) return Status::Ok();
    sql::Query q(st_->claim_group_end);
    if (Status st = q.BindInt(first).BindInt(end).Run(); !st.ok()) return st;
    claimed = db_->Changes() == 1;
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return claimed;
}

}  // namespace tq
