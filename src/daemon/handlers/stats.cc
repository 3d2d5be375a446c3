// `tq stats`: the daemon's counts and counters as one snapshot (SPEC 11 metrics).
#include "core/metrics/metrics.h"
#include "daemon/handlers/handlers.h"

namespace tq {

void HandleStats(RequestContext& ctx, ConnId conn, const Owner&, const StatsRequest&) {
  auto snapshot = ctx.metrics();
  if (!snapshot.ok()) {
    ctx.server.Send(conn, ErrorResponse(snapshot.status()));
    return;
  }
  ctx.server.Send(conn, OkResponse({{"stats", MetricsToJson(*snapshot)}}));
}

}  // namespace tq
