// The tasks a request names, as far as its caller may see them.
#include <unordered_set>

#include "daemon/handlers/handlers.h"

namespace tq {

Result<std::vector<Task>> VisibleTasks(Daemon& d, const Owner& peer,
                                       const std::vector<TaskId>& ids) {
  std::vector<Task> tasks;
  std::unordered_set<TaskId> seen;
  for (TaskId id : ids) {
    if (!seen.insert(id).second) continue;  // an id given twice is one task, read once
    auto t = d.GetVisibleSummary(peer, id);
    if (!t.ok()) return t.status();
    tasks.push_back(std::move(*t));
  }
  return tasks;
}

}  // namespace tq
