// Who may hold how many of the daemon's client connections: a total bound derived from the
// descriptor limit, a per-user bound, and a few last slots kept for the daemon's own user and root.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "core/model/status.h"

namespace tq {

/// Counts open connections in total and per uid and decides whether one more is admitted.
/// Root and `owner_uid` (the user the daemon runs as) are exempt from the per-user bound and
/// may use the `owner_reserve` last slots; every other uid is bounded by `per_uid` and by
/// `total - owner_reserve`.
class ConnectionSlots {
 public:
  ConnectionSlots(size_t total, size_t per_uid, size_t owner_reserve, uint32_t owner_uid);

  /// Counts one more connection of `uid`, or says (kLimit, naming the limit) why it is refused.
  Status Admit(uint32_t uid);
  /// Forgets one connection of `uid`.
  void Release(uint32_t uid);
  /// True when no connection at all may be added: the listening socket is not watched then.
  bool Full() const { return open_ >= total_; }
  /// Connections open in all.
  size_t open() const { return open_; }
  /// Connections `uid` has open.
  size_t OpenBy(uint32_t uid) const;

 private:
  bool Exempt(uint32_t uid) const { return uid == 0 || uid == owner_uid_; }

  size_t total_;
  size_t per_uid_;
  size_t owner_reserve_;
  uint32_t owner_uid_;
  size_t open_ = 0;
  std::unordered_map<uint32_t, size_t> by_uid_;
};

}  // namespace tq
