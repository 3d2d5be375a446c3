#include "daemon/handlers/handlers.h"

namespace tq {

namespace {
// The ids `tq retry` acts on: the given ones (all visible, or not found), or every failed
// task of the peer (in `queue`).
Result<std::vector<TaskId>> Targets(Daemon& d, const Owner& peer, const RetryRequest& r) {
  if (!r.all_failed) {
    auto tasks = VisibleTasks(d, peer, r.ids);
    if (!tasks.ok()) return tasks.status();
    return r.ids;
  }
  ListFilter filter;
  filter.owner_uid = d.SeesAll(peer) ? std::nullopt : std::optional<uint32_t>(peer.uid);
  filter.state = TaskState::kFailed;
  filter.queue = r.queue;
  filter.limit = 0;  // all of them
  auto tasks = d.store().List(filter);
  if (!tasks.ok()) return tasks.status();
  std::vector<TaskId> ids;
  for (const Task& t : *tasks) ids.push_back(t.id);
  return ids;
}
}  // namespace

void HandleRetry(Daemon& d, ConnId conn, const Owner& peer, const RetryRequest& r) {
  auto targets = Targets(d, peer, r);
  if (!targets.ok()) {
    d.server().Send(conn, ErrorResponse(targets.status()));
    return;
  }
  std::vector<TaskId> requeued;
  for (TaskId id : *targets) {
    auto done = d.store().Requeue(id, d.clock().WallNow());
    if (!done.ok()) {
      d.server().Send(conn, ErrorResponse(done.status()));
      return;
    }
    if (*done) requeued.push_back(id);
  }
  d.server().Send(conn, OkResponse({{"ids", requeued}}));
  if (!requeued.empty()) d.ScheduleDispatch();
}

}  // namespace tq
