// When one host of a shared store may fence another (SPEC 12), judged on the store's clock
// alone: the other's last heartbeat is a whole lease old, and this host's own heartbeats were
// stored without a gap for a whole lease. A host that was stalled itself, or whose store was
// (perhaps every host's was), fences no one on its first looks after: the others have a lease to
// beat again first.
#pragma once

#include <cstdint>
#include <optional>

#include "core/model/clock.h"

namespace tq {

/// What one host knows of its own heartbeats, and the rule it fences by.
class LeaseWatch {
 public:
  /// This host's heartbeat was stored at `at` (the store's clock). A gap of more than half a
  /// lease since the one before (a stall, or the store's clock stepped) starts its watch again.
  void Beat(WallMs at, int64_t lease_ms);
  /// Whether a host whose last heartbeat is `silent_ms` old (the store's clock, read just after
  /// this host's last Beat) may be fenced now.
  bool MayFence(int64_t silent_ms, int64_t lease_ms) const;
  /// How long this host has beaten without a gap (0 before its first beat).
  int64_t WatchedMs() const;

 private:
  std::optional<WallMs> last_;  ///< this host's last stored heartbeat
  WallMs since_ = 0;            ///< the first of its beats since the last gap
};

}  // namespace tq
