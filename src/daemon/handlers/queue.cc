#include "daemon/handlers/handlers.h"

namespace tq {

void HandleQueue(Daemon& d, ConnId conn, const Owner& peer, const QueueRequest& r) {
  if (r.action != "list" && !d.SeesAll(peer)) {
    d.server().Send(conn, ErrorResponse(Status(
                              ErrorCode::kPermission, "queue",
                              "queue: only root (or the daemon's own user) may change queues")));
    return;
  }
  Status st;
  if (r.action == "pause" || r.action == "resume") {
    st = d.store().SetQueuePaused(r.name, r.action == "pause");
  } else if (r.action == "set") {
    st = d.store().SetQueueConcurrency(
        r.name, *r.concurrency == 0 ? std::nullopt : std::optional<int>(*r.concurrency));
  }
  if (!st.ok()) {
    d.server().Send(conn, ErrorResponse(st));
    return;
  }
  d.server().Send(conn, OkResponse({{"queues", d.QueuesJson()}}));
  if (r.action != "list") d.ScheduleDispatch();
}

}  // namespace tq
