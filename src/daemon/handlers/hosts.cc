// `tq hosts` (SPEC 12): the hosts the store knows, each with its state, its last heartbeat and
// what it runs.
#include "core/model/wall_time.h"
#include "daemon/handlers/handlers.h"
#include "daemon/host/host_state.h"

namespace tq {

void HandleHosts(RequestContext& ctx, ConnId conn, const Owner&, const HostsRequest&) {
  auto hosts = ctx.store.Hosts(ctx.clock.WallNow());
  if (!hosts.ok()) {
    ctx.server.Send(conn, ErrorResponse(hosts.status()));
    return;
  }
  const bool shared = ctx.config->Shared();
  const int64_t lease_ms = ctx.config->host_lease_ms;
  nlohmann::json out = nlohmann::json::array();
  for (const HostRecord& h : *hosts) {
    const int64_t age_ms = HeartbeatAgeMs(h);
    out.push_back({{"name", h.name},
                   {"version", h.version},
                   {"epoch", h.epoch},
                   {"state", HostStateName(h, ctx.host, shared, age_ms, lease_ms)},
                   {"heartbeat", FormatRfc3339Utc(h.heartbeat)},
                   {"heartbeat_age_ms", age_ms},
                   {"started", FormatRfc3339Utc(h.started)},
                   {"running", h.running},
                   {"max_running", h.max_running},
                   {"this", h.name == ctx.host}});
  }
  ctx.server.Send(
      conn, OkResponse({{"hosts", std::move(out)}, {"lease_ms", lease_ms}, {"shared", shared}}));
}

}  // namespace tq
