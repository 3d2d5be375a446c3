#include "daemon/handlers/handlers.h"

namespace tq {

void HandleList(Daemon& d, ConnId conn, const Owner& peer, const ListRequest& r) {
  ListFilter filter = r.filter;
  filter.owner_uid = d.SeesAll(peer) ? std::nullopt : std::optional<uint32_t>(peer.uid);
  auto tasks = d.store().List(filter);
  if (!tasks.ok()) {
    d.server().Send(conn, ErrorResponse(tasks.status()));
    return;
  }
  nlohmann::json out = nlohmann::json::array();
  for (const Task& t : *tasks) out.push_back(TaskToJson(t));
  d.server().Send(conn, OkResponse({{"tasks", std::move(out)}}));
}

}  // namespace tq
