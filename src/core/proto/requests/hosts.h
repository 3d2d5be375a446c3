// The "hosts" request (`tq hosts`, SPEC 12): the hosts the store knows, each with its state, its
// last heartbeat and what it runs.
#pragma once

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// The hosts of the store, by name. Response: {"hosts": [{"name", "version", "epoch", "state":
/// "live", "silent" (no heartbeat for longer than the lease; with SQLite, a name the one host
/// no longer goes by) or "fenced" (another host took its running attempts), "heartbeat": the
/// RFC 3339 time of its last heartbeat (with SQLite, of its start), "heartbeat_age_ms": how long
/// ago that was on the answering host's clock (>= 0), "started": RFC 3339, "running",
/// "max_running", "this": true for the host that answered}], "lease_ms": host_lease in
/// milliseconds, "shared": true when the store is PostgreSQL}.
struct HostsRequest {};
/// A hosts request's body read from its frame, every field checked.
Result<HostsRequest> DecodeHosts(const nlohmann::json& body);
/// The body of a hosts request's frame.
nlohmann::json EncodeHosts(const HostsRequest& request);

}  // namespace tq
