// The tasks a request names, as far as its caller may see them.
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
  std::vector<Task> tasks;
  std::unordered_set<TaskId> seen;
  for (TaskId id : ids) {
    if (!seen.insert(id).second) continue;  // an id given twice is one task, read once
    auto t = Visible(ctx, peer, id, ctx.store.GetSummary(id));
    if (!t.ok()) return t.status();
    tasks.push_back(std::move(*t));
  }
  return tasks;
}

}  // namespace tq
