// `tq stats`: the daemon's counts and counters as one snapshot (SPEC 11 metrics).
#include "core/metrics/metrics.h"
#include "daemon/handlers/handlers.h"

namespace tq {

void HandleStats(Daemon& d, ConnId conn, const Owner&, const StatsRequest&) {
  auto snapshot = d.Metrics();
  if (!snapshot.ok()) {
    d.server().Send(conn, ErrorResponse(snapshot.status()));
    return;
  }
  d.server().Send(conn, OkResponse({{"stats", MetricsToJson(*snapshot)}}));
}

}  // namespace tq
