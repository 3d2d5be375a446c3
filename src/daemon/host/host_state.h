// A host of the store as one host sees it (SPEC 12): live, silent, stopped or fenced, and the age
// of its last heartbeat; `tq hosts` and the metrics say the same.
#pragma once

#include <string>

#include "core/model/clock.h"
#include "core/store/store.h"

namespace tq {

/// "fenced" once another host took `h`'s attempts; with a shared store "silent" when its last
/// heartbeat is `age_ms` old, older than the lease, else "live"; with SQLite, whose file one
/// machine opens, only `self` is live and any other name is an old one of the same machine,
/// "silent".
const char* HostStateName(const HostRecord& h, const std::string& self, bool shared, int64_t age_ms,
                          int64_t lease_ms);

/// How long ago `h`'s last heartbeat was, on the store's clock (HostRecord::silent_ms); never
/// below 0: a heartbeat stored before that clock stepped back is not in the future.
int64_t HeartbeatAgeMs(const HostRecord& h);

}  // namespace tq
