// `tq events -f`: the connection follows the state changes of the tasks its user may see.
#include "daemon/handlers/handlers.h"

namespace tq {

// Without follow there is nothing to send (no past events are kept): the end at once. With it
// the connection is subscribed until it closes; it is busy, so the idle limit never closes it.
void HandleEvents(RequestContext& ctx, ConnId conn, const Owner& peer, const EventsRequest& r) {
  if (!r.follow) {
    ctx.server.Send(conn, OkResponse({{"end", true}}));
    return;
  }
  ctx.server.SetBusy(conn, true);
  ctx.events.Add(conn, peer);
}

}  // namespace tq
