// What the daemon reports of the store (SPEC 11): the counts behind `tq stats` and the metrics
// textfile, and the line systemd's status shows.
#pragma once

#include <optional>
#include <string>

#include "core/config/config.h"
#include "core/metrics/metrics.h"
#include "core/model/status.h"
#include "core/store/store.h"

namespace tq {

/// The store's counts now: tasks per queue and state, running attempts per queue, the size of
/// the database at `db_path` with its log, and the hosts as host `self` sees them at `now`.
/// Queues tqd.toml does not name are counted together (kOtherQueuesLabel): any user may make one
/// and every user reads the metrics, so their names would leak and their series grow without
/// bound. The counters are left for the caller.
Result<MetricsSnapshot> StoreMetrics(Store& store, const Config& config, const std::string& db_path,
                                     const std::string& self, WallMs now);

/// Whether the metrics count `queue`'s tasks under its own name: the default queue and those
/// tqd.toml names; the others are counted together as kOtherQueuesLabel.
bool CountedApart(const Config& config, const std::string& queue);

/// What systemd's status shows: running attempts and pending tasks; nullopt on a store fault.
std::optional<std::string> ServiceStatusOf(Store& store);

}  // namespace tq
