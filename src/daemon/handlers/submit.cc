#include "daemon/handlers/handlers.h"

namespace tq {

void HandleSubmit(Daemon& d, ConnId conn, const Owner& peer, const SubmitRequest& r) {
  auto id = d.store().Insert(peer, r.spec, d.clock().WallNow());
  if (!id.ok()) {
    d.server().Send(conn, ErrorResponse(id.status()));
    return;
  }
  d.server().Send(conn, OkResponse({{"id", *id}}));
  d.ScheduleDispatch();
}

}  // namespace tq
