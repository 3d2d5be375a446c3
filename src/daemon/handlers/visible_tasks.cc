// The tasks a request names, as far as its caller may see them.
#include "daemon/handlers/handlers.h"

namespace tq {

Result<std::vector<Task>> VisibleTasks(Daemon& d, const Owner& peer,
                                       const std::vector<TaskId>& ids) {
  std::vector<Task> tasks;
  for (TaskId id : ids) {
    auto t = d.GetVisible(peer, id);
    if (!t.ok()) return t.status();
    tasks.push_back(std::move(*t));
  }
  return tasks;
}

}  // namespace tq
