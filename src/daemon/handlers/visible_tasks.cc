// The tasks a request names, as far as its caller may see them.
#include <unordered_map>
#include <unordered_set>

#include "daemon/handlers/handlers.h"

namespace tq {

namespace {

// `task` (read for `id`) when `peer` may see it, else kNotFound naming the id, so ids of other
// users cannot be probed.
Result<Task> Visible(RequestContext& ctx, const Owner& peer, TaskId id, Result<Task> task) {
  if (!task.ok() || !ctx.access.For(peer).Sees(task->owner.uid))
    return task.ok() || task.status().code() == ErrorCode::kNotFound
               ? Status::NotFound("task " + std::to_string(id) + " not found")
               : task.status();
  return task;
}

}  // namespace

Result<Task> VisibleTask(RequestContext& ctx, const Owner& peer, TaskId id) {
  return Visible(ctx, peer, id, ctx.store.Get(id));
}

Result<std::vector<Task>> VisibleTasks(RequestContext& ctx, const Owner& peer,
                                       const std::vector<TaskId>& ids) {
  // Read together: two statements for up to 500 tasks (a wait for a batch of thousands).
  auto read = ctx.store.GetSummaries(ids);
  if (!read.ok()) return read.status();
  std::unordered_map<TaskId, Task*> found;
  for (Task& t : *read) found.emplace(t.id, &t);
  std::vector<Task> tasks;
  std::unordered_set<TaskId> seen;
  for (TaskId id : ids) {
    if (!seen.insert(id).second) continue;  // an id given twice is one task, read once
    auto it = found.find(id);
    Result<Task> task = it != found.end() ? Result<Task>(std::move(*it->second))
                                          : Result<Task>(Status::NotFound("task not found"));
    if (!task.ok() && task.status().code() == ErrorCode::kNotFound) {
      auto shards = ctx.store.ShardsOf(id);  // a group's id stands for its shards
      if (!shards.ok()) return shards.status();
      if (!shards->empty()) {
        std::vector<TaskId> shard_ids;
        for (const ShardState& shard : *shards) shard_ids.push_back(shard.id);
        auto group = VisibleTasks(ctx, peer, shard_ids);
        if (!group.ok())
          return group.status().code() == ErrorCode::kNotFound
                     ? Status::NotFound("task " + std::to_string(id) + " not found")
                     : group.status();
        for (Task& shard : *group)
          if (seen.insert(shard.id).second) tasks.push_back(std::move(shard));
        continue;
      }
    }
    auto t = Visible(ctx, peer, id, std::move(task));
    if (!t.ok()) return t.status();
    tasks.push_back(std::move(*t));
  }
  return tasks;
}

std::vector<TaskId> WithShards(RequestContext& ctx, const Owner& peer,
                               const std::vector<TaskId>& ids) {
  std::vector<TaskId> out;
  for (TaskId id : ids) {
    auto shards = ctx.store.ShardsOf(id);
    // A task's id, a group `peer` may not see (its shards' ids stay unknown) or one whose error
    // its own read will tell, stays as it is.
    if (!shards.ok() || shards->empty() || !VisibleTask(ctx, peer, shards->front().id).ok()) {
      out.push_back(id);
      continue;
    }
    for (const ShardState& shard : *shards) out.push_back(shard.id);
  }
  return out;
}

}  // namespace tq
