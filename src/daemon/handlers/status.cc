#include "daemon/handlers/handlers.h"

namespace tq {

void HandleStatus(Daemon& d, ConnId conn, const Owner& peer, const StatusRequest& r) {
  auto task = d.GetVisible(peer, r.id);
  d.server().Send(
      conn, task.ok() ? OkResponse({{"task", TaskToJson(*task)}}) : ErrorResponse(task.status()));
}

}  // namespace tq
