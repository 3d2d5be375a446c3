// `tq hosts` (SPEC 12): the hosts the store knows, each with its state, its last heartbeat and
// what it runs.
#include <algorithm>

#include "core/model/wall_time.h"
#include "daemon/handlers/handlers.h"

namespace tq {

namespace {

// What `tq hosts` calls host `h`, answered by host `self`: "fenced" once another host took its
// attempts; with a shared store "silent" when its last heartbeat is older than the lease, else
// "live"; with SQLite, whose file one machine opens, only `self` is live and any other name is an
// old one of the same machine, "silent".
const char* HostState(const HostRecord& h, const std::string& self, bool shared, int64_t age_ms,
                      int64_t lease_ms) {
  if (h.beats < 0) return "fenced";
  if (!shared) return h.name == self ? "live" : "silent";
  return age_ms > lease_ms ? "silent" : "live";
}

}  // namespace

void HandleHosts(RequestContext& ctx, ConnId conn, const Owner&, const HostsRequest&) {
  auto hosts = ctx.store.Hosts();
  if (!hosts.ok()) {
    ctx.server.Send(conn, ErrorResponse(hosts.status()));
    return;
  }
  const bool shared = !ctx.config->store.empty();
  const int64_t lease_ms = ctx.config->host_lease_ms;
  const WallMs now = ctx.clock.WallNow();
  nlohmann::json out = nlohmann::json::array();
  for (const HostRecord& h : *hosts) {
    // Another host's heartbeat is on its own clock: one ahead of this one's is not in the future.
    const int64_t age_ms = std::max<int64_t>(0, now - h.heartbeat);
    out.push_back({{"name", h.name},
                   {"version", h.version},
                   {"epoch", h.epoch},
                   {"state", HostState(h, ctx.host, shared, age_ms, lease_ms)},
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
