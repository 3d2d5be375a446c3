#include <algorithm>

#include "daemon/handlers/handlers.h"

namespace tq {

namespace {
// Tasks re-queued per transaction (one sync each) by `tq retry`.
constexpr size_t kRequeueBatch = 1000;
}  // namespace

void HandleRetry(RequestContext& ctx, ConnId conn, const Owner& peer, const RetryRequest& r) {
  auto targets = SelectedTasks(ctx, peer, r.select, {TaskState::kFailed}, "retry");
  if (!targets.ok()) {
    ctx.server.Send(conn, ErrorResponse(targets.status()));
    return;
  }
  // Dependencies first (ascending ids, as Requeue asks): a dependent named or listed before the
  // task it waits for would otherwise be refused while that task is still failed.
  std::vector<TaskId> ids = IdsOf(*targets);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  // Tasks pending again count as submits against the caller's limits.
  if (Status admitted = ctx.submits.Admit(peer, static_cast<int64_t>(ids.size())); !admitted.ok()) {
    ctx.server.Send(conn, ErrorResponse(admitted));
    return;
  }
  // In bulk, a task whose dependency stays failed (not among those re-queued) is left as it is
  // instead of failing the whole request.
  std::vector<TaskId> requeued;
  for (size_t at = 0; at < ids.size(); at += kRequeueBatch) {
    const std::vector<TaskId> batch(ids.begin() + at,
                                    ids.begin() + std::min(ids.size(), at + kRequeueBatch));
    auto done = ctx.store.RequeueAll(batch, ctx.clock.WallNow(), r.select.ByFilter());
    if (!done.ok()) {
      ctx.server.Send(conn, ErrorResponse(done.status()));
      if (!requeued.empty()) ctx.dispatch.Schedule();  // earlier batches stay re-queued
      return;
    }
    requeued.insert(requeued.end(), done->begin(), done->end());
  }
  ctx.counters.submitted["retry"] += requeued.size();
  ctx.server.Send(conn, OkResponse({{"ids", requeued}}));
  ctx.events.Reread(requeued, "requeued");
  if (!requeued.empty()) ctx.dispatch.Schedule();
}

}  // namespace tq
