// Who sees what in tqd: the one decision, over a caller's credentials, that task lookups,
// listings, retry and the admin-only requests all follow.
#pragma once

#include <cstdint>
#include <optional>

#include "core/model/task.h"

namespace tq {

/// What one caller may see and do.
struct Access {
  bool admin = false;  ///< sees every user's tasks and may send admin-only requests
  uint32_t uid = 0;    ///< the caller's uid

  /// True when the caller may see (and act on) a task owned by `owner_uid`.
  bool Sees(uint32_t owner_uid) const;
  /// The owner a listing of the caller's tasks is limited to; nullopt: every owner.
  std::optional<uint32_t> OwnerFilter() const;
};

/// The decision: root and the user tqd runs as (`daemon_uid`) are admins and see every task;
/// any other user sees only its own. Pure; the multi-user mode extends it (admin groups).
Access AccessOf(const Owner& peer, uint32_t daemon_uid);

}  // namespace tq
