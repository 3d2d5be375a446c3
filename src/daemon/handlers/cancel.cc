#include <algorithm>

#include "daemon/handlers/handlers.h"

namespace tq {

void HandleCancel(Daemon& d, ConnId conn, const Owner& peer, const CancelRequest& r) {
  auto tasks = VisibleTasks(d, peer, r.ids);
  if (!tasks.ok()) {
    d.server().Send(conn, ErrorResponse(tasks.status()));
    return;
  }
  if (r.progress) {
    const auto running = std::count_if(
        tasks->begin(), tasks->end(), [](const Task& t) { return t.state == TaskState::kRunning; });
    if (running > 0)
      d.server().Send(conn, {{"stopping", running}, {"grace_ms", d.config().kill_grace_ms}});
  }
  // Register first, so a pending task that ends right here is answered too.
  d.server().SetBusy(conn, true);
  d.waiters().Add(conn, Waiters::Kind::kCollect, *tasks);
  for (const Task& t : *tasks) {
    if (t.state == TaskState::kPending) {
      d.EndPending(t.id, TaskState::kCancelled, TaskReason::kCancelled);
    } else if (t.state == TaskState::kRunning) {
      d.StopRunning(t.id, TaskReason::kCancelled);
    }
  }
}

}  // namespace tq
