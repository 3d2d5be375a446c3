#include <algorithm>

#include "core/model/signal_names.h"
#include "daemon/handlers/handlers.h"

namespace tq {

namespace {

// Pending tasks ended in one transaction, a pass of the loop each.
constexpr size_t kCancelSlice = 250;

// Cancels `tasks`, the tasks `r` selected; `conn` is answered as each ends (Waiters).
void CancelTasks(RequestContext& ctx, ConnId conn, const CancelRequest& r,
                 const std::vector<Task>& tasks) {
  if (r.progress) {
    const auto running = std::count_if(
        tasks.begin(), tasks.end(), [](const Task& t) { return t.state == TaskState::kRunning; });
    if (running > 0)
      ctx.server.Send(conn, {{"stopping", running},
                             {"signal", SignalName(r.kill ? SIGKILL : r.signal)},
                             {"grace_ms", r.kill ? 0 : ctx.config->kill_grace_ms},
                             {"ids", IdsOf(tasks)}});
  }
  // Register first, so a pending task that ends right here is answered too. A caller gone
  // while its filters were read is not waited for; its cancel still is done.
  if (ctx.server.IsOpen(conn)) {
    ctx.server.SetBusy(conn, true);
    ctx.waiters.Add(conn, Waiters::Kind::kCollect, tasks);
  }
  std::vector<TaskId> pending;
  for (const Task& t : tasks) {
    if (t.state == TaskState::kPending) {
      pending.push_back(t.id);
    } else if (t.state == TaskState::kRunning) {
      ctx.dispatch.StopRunning(t.id, TaskReason::kCancelled, StopSignal{r.signal, r.kill});
    }
  }
  // A slice of them (one transaction) per pass of the loop: the waiters hear of each as it ends.
  InSlices(
      ctx, std::move(pending), kCancelSlice,
      [&ctx](const std::vector<TaskId>& slice) {
        ctx.dispatch.EndPending(slice, TaskState::kCancelled, TaskReason::kCancelled);
        return Status::Ok();  // a slice the store refused was told to its waiters
      },
      [](const Status&) {});
}

}  // namespace

void HandleCancel(RequestContext& ctx, ConnId conn, const Owner& peer, const CancelRequest& r) {
  SelectTasks(ctx, conn, peer, r.select, CancellableStates(), "cancel",
              [&ctx, conn, r](Result<std::vector<Task>> tasks) {
                if (!tasks.ok()) return ctx.server.Send(conn, ErrorResponse(tasks.status()));
                CancelTasks(ctx, conn, r, *tasks);
              });
}

}  // namespace tq
