#include <algorithm>

#include "core/model/signal_names.h"
#include "daemon/handlers/handlers.h"

namespace tq {

void HandleCancel(RequestContext& ctx, ConnId conn, const Owner& peer, const CancelRequest& r) {
  auto tasks = SelectedTasks(ctx, peer, r.select, CancellableStates(), "cancel");
  if (!tasks.ok()) {
    ctx.server.Send(conn, ErrorResponse(tasks.status()));
    return;
  }
  if (r.progress) {
    const auto running = std::count_if(
        tasks->begin(), tasks->end(), [](const Task& t) { return t.state == TaskState::kRunning; });
    if (running > 0)
      ctx.server.Send(conn, {{"stopping", running},
                             {"signal", SignalName(r.kill ? SIGKILL : r.signal)},
                             {"grace_ms", r.kill ? 0 : ctx.config->kill_grace_ms},
                             {"ids", IdsOf(*tasks)}});
  }
  // Register first, so a pending task that ends right here is answered too.
  ctx.server.SetBusy(conn, true);
  ctx.waiters.Add(conn, Waiters::Kind::kCollect, *tasks);
  std::vector<TaskId> pending;
  for (const Task& t : *tasks) {
    if (t.state == TaskState::kPending) {
      pending.push_back(t.id);
    } else if (t.state == TaskState::kRunning) {
      ctx.dispatch.StopRunning(t.id, TaskReason::kCancelled, StopSignal{r.signal, r.kill});
    }
  }
  ctx.dispatch.EndPending(pending, TaskState::kCancelled, TaskReason::kCancelled);
}

}  // namespace tq
